import Foundation

/// A strict reader of the Prometheus text format 0.0.4, as a scraper reads it: every rule a
/// page breaks is a problem, and the samples are kept (by name and labels as written) for a
/// later page to be compared with. `metricSamples` reads values; this checks the page.
struct PrometheusExposition {
    struct Family {
        var type: String?
        var help: String?
        var sampled = false
    }

    private(set) var families: [String: Family] = [:]
    /// Every sample: its name and labels as written, and its value.
    private(set) var samples: [String: Double] = [:]
    private(set) var problems: [String] = []
    /// The family whose samples came last: a family's lines must not be split by another's.
    private var current: String?
    /// A histogram's series: its family and its labels but `le`.
    private struct Series: Hashable {
        let base: String
        let labels: [(String, String)]
        var key: String { base + labels.map { "\($0.0)=\($0.1)" }.joined(separator: ",") }
        static func == (a: Series, b: Series) -> Bool { a.key == b.key }
        func hash(into hasher: inout Hasher) { hasher.combine(key) }
    }

    /// `_bucket` counts by series, in the order written.
    private var buckets: [Series: [(le: Double, count: Double)]] = [:]

    init(_ text: String) {
        if !text.isEmpty, !text.hasSuffix("\n") { problems.append("the page does not end in a line break") }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            read(String(line))
        }
        checkHistograms()
    }

    /// Counter samples (names ending in `_total`, and histograms' `_bucket`, `_sum`, `_count`)
    /// that went down since `earlier`: while the process lives, none may.
    func decreases(since earlier: PrometheusExposition) -> [String] {
        samples.compactMap { key, value in
            let family = familyName(of: String(key.prefix { $0 != "{" }))
            let type = families[family]?.type
            guard type == "counter" || type == "histogram", let before = earlier.samples[key], value < before else { return nil }
            return "\(key): \(before) then \(value)"
        }
    }

    private mutating func read(_ line: String) {
        if line.isEmpty { return problems.append("an empty line") }
        if line.hasPrefix("#") { return comment(line) }
        guard let sample = Self.parseSample(line) else { return problems.append("not a sample: \(line)") }
        let family = familyName(of: sample.name)
        guard let declared = families[family], declared.type != nil else {
            return problems.append("\(sample.name) has no TYPE before it")
        }
        if current != family {
            if declared.sampled { problems.append("the samples of \(family) are split by another family's") }
            current = family
        }
        families[family]?.sampled = true
        var names = Set<String>()
        for (name, _) in sample.labels {
            if !Self.isLabelName(name) { problems.append("invalid label name \(name) in \(line)") }
            if !names.insert(name).inserted { problems.append("label \(name) twice in \(line)") }
        }
        if sample.value.isNaN { problems.append("NaN in \(line)") }
        let key = line[..<line.lastIndex(of: " ")!]
        if samples.updateValue(sample.value, forKey: String(key)) != nil { problems.append("a sample repeated: \(key)") }
        if declared.type == "histogram", sample.name.hasSuffix("_bucket") {
            guard let le = sample.labels.first(where: { $0.0 == "le" }), let bound = Self.parseValue(le.1) else {
                return problems.append("a bucket without a numeric le: \(line)")
            }
            let series = Series(base: family, labels: sample.labels.filter { $0.0 != "le" })
            buckets[series, default: []].append((bound, sample.value))
        }
    }

    private mutating func comment(_ line: String) {
        let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0] == "#", parts[1] == "HELP" || parts[1] == "TYPE" else { return }
        let name = String(parts[2])
        let text = parts.count > 3 ? String(parts[3]) : ""
        if !Self.isMetricName(name) { problems.append("invalid metric name \(name)") }
        var family = families[name] ?? Family()
        if family.sampled || current == name { problems.append("\(parts[1]) of \(name) after its samples") }
        if parts[1] == "HELP" {
            if family.help != nil { problems.append("a second HELP for \(name)") }
            if Self.hasBadEscape(text, allowed: ["\\", "n"]) { problems.append("a bad escape in the HELP of \(name)") }
            family.help = text
        } else {
            if family.type != nil { problems.append("a second TYPE for \(name)") }
            if !["counter", "gauge", "histogram", "summary", "untyped"].contains(text) { problems.append("type \(text) of \(name)") }
            if text == "counter", !name.hasSuffix("_total") { problems.append("counter \(name) does not end in _total") }
            family.type = text
        }
        families[name] = family
    }

    /// The family a sample belongs to: a histogram's `_bucket`, `_sum` and `_count` are its own.
    private func familyName(of sample: String) -> String {
        for suffix in ["_bucket", "_sum", "_count"] where sample.hasSuffix(suffix) {
            let base = String(sample.dropLast(suffix.count))
            if families[base]?.type == "histogram" { return base }
        }
        return sample
    }

    /// Each histogram series: `le` rising to `+Inf`, counts never falling, `+Inf` equal to
    /// `_count`; and every family both a HELP and a TYPE.
    private mutating func checkHistograms() {
        for (series, bounds) in buckets {
            let pairs = zip(bounds, bounds.dropFirst())
            if pairs.contains(where: { $0.le >= $1.le }) { problems.append("\(series.key): le not rising") }
            if pairs.contains(where: { $0.count > $1.count }) { problems.append("\(series.key): buckets not cumulative") }
            guard let last = bounds.last, last.le == .infinity else {
                problems.append("\(series.key): no +Inf bucket")
                continue
            }
            let labels = series.labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",")
            let count = series.base + "_count" + (labels.isEmpty ? "" : "{\(labels)}")
            if samples[count] != last.count { problems.append("\(series.key): +Inf \(last.count), \(count) \(samples[count] ?? -1)") }
        }
        for (name, family) in families where family.help == nil || family.type == nil {
            problems.append("\(name) lacks its HELP or its TYPE")
        }
    }

    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    // MARK: Lexing

    /// `name{label="value",…} value`, values unescaped; nil when the line is not one.
    static func parseSample(_ line: String) -> (name: String, labels: [(String, String)], value: Double)? {
        var rest = Substring(line)
        let name = String(rest.prefix { $0 != "{" && $0 != " " })
        guard isMetricName(name) else { return nil }
        rest = rest.dropFirst(name.count)
        var labels: [(String, String)] = []
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let label = String(rest.prefix { $0 != "=" })
                rest = rest.dropFirst(label.count)
                guard rest.hasPrefix("=\"") else { return nil }
                rest = rest.dropFirst(2)
                var value = ""
                while let character = rest.first, character != "\"" {
                    rest = rest.dropFirst()
                    guard character == "\\" else {
                        value.append(character)
                        continue
                    }
                    switch rest.first {
                    case "\\": value.append("\\")
                    case "\"": value.append("\"")
                    case "n": value.append("\n")
                    default: return nil
                    }
                    rest = rest.dropFirst()
                }
                guard rest.first == "\"" else { return nil }
                rest = rest.dropFirst()
                labels.append((label, value))
                if rest.first == "," { rest = rest.dropFirst() } else if rest.first != "}" { return nil }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { return nil }
        // A value and, in 0.0.4, an optional timestamp (none here: a second field is refused).
        let fields = rest.dropFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 1, let value = parseValue(String(fields[0])) else { return nil }
        return (name, labels, value)
    }

    /// A Go float as Prometheus reads one: digits with `.`, `e`, a sign, or `+Inf`, `-Inf`, `NaN`.
    static func parseValue(_ text: String) -> Double? {
        switch text {
        case "+Inf": return .infinity
        case "-Inf": return -.infinity
        case "NaN": return .nan
        default:
            guard !text.isEmpty, text.allSatisfy({ "0123456789.eE+-".contains($0) }) else { return nil }
            return Double(text)
        }
    }

    static func isMetricName(_ name: String) -> Bool {
        guard let first = name.first, first.isASCII, first.isLetter || first == "_" || first == ":" else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") }
    }

    static func isLabelName(_ name: String) -> Bool {
        guard let first = name.first, first.isASCII, first.isLetter || first == "_", !name.hasPrefix("__") else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }

    private static func hasBadEscape(_ text: String, allowed: Set<Character>) -> Bool {
        var characters = text.makeIterator()
        while let character = characters.next() {
            guard character == "\\" else { continue }
            guard let next = characters.next(), allowed.contains(next) else { return true }
        }
        return false
    }
}
