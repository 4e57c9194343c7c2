
/// The Prometheus text exposition format (version 0.0.4), written line by line.
struct PrometheusText {
    private(set) var text = ""

    /// `# HELP` and `# TYPE` lines that introduce a metric family.
    mutating func family(_ name: String, type: String, help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.format(value) + "\n"
    }

    /// A family of one unlabelled sample; nothing at all for a figure this machine cannot give.
    mutating func single(_ name: String, type: String, help: String, _ value: Double?) {
        guard let value else { return }
        family(name, type: type, help: help)
        sample(name, [], value)
    }

    static func format(_ value: Double) -> String {
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }

    /// Label values escape backslash, double quote and newline.
    private static func escape(_ value: String) -> String {
        // By scalar, not Character: "\r\n" is one Character, and its "\n" must be escaped too.
        var escaped = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": escaped.append(contentsOf: "\\\\".unicodeScalars)
            case "\"": escaped.append(contentsOf: "\\\"".unicodeScalars)
            case "\n": escaped.append(contentsOf: "\\n".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}
