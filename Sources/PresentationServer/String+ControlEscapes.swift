extension String {
    /// The string with its control characters escaped (`\r`, `\n`), for a line read at a
    /// terminal: it stays one line, and a carriage return from a file saved with CRLF line ends
    /// no longer sends the rest of the line back over its start. Cut after `limit` characters,
    /// with the whole length said, so that a megabyte read from the wrong file is not echoed.
    func escapingControls(upTo limit: Int = .max) -> String {
        var text = ""
        for (index, scalar) in unicodeScalars.enumerated() {
            guard index < limit else { return text + "… (\(utf8.count) bytes)" }
            if scalar.properties.generalCategory == .control {
                text += scalar.escaped(asASCII: false)
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}
