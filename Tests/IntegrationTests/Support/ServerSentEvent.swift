/// One Server-Sent Events message: the field lines up to a blank line, as they arrived.
struct ServerSentEvent {
    /// The raw lines, such as `id: 3` and `data: {...}`.
    var lines: [String] = []

    /// The value of the last `name:` field, with the one optional space after the colon removed.
    func field(_ name: String) -> String? {
        values(of: name).last
    }

    var id: String? { field("id") }
    var event: String? { field("event") }

    /// Every `data:` line joined with newlines, as an EventSource would deliver it.
    var data: String {
        values(of: "data").joined(separator: "\n")
    }

    func json() throws(ClientError) -> [String: Any] {
        try JSONText.object(from: Array(data.utf8))
    }

    private func values(of name: String) -> [String] {
        lines.compactMap { line in
            guard line.hasPrefix(name + ":") else { return nil }
            let value = line.dropFirst(name.count + 1)
            return String(value.first == " " ? value.dropFirst() : value)
        }
    }
}
