/// The samples of a Prometheus text page (`name{labels} value` lines), keyed by everything
/// before the value.
func metricSamples(_ text: String) -> [String: Double] {
    var samples: [String: Double] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
        guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
        samples[String(line[..<space])] = value
    }
    return samples
}
