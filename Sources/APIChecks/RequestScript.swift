/// Decodes bytes into the HTTP requests the request fuzz target sends, in a text form close to
/// the wire so that seed inputs are real requests a person can read and write:
///
///     POST /v1/sessions/{id}/push?a=b
///     Authorization: Bearer {token}
///     Content-Type: application/json
///
///     {"screen": "detail"}
///     ~~~
///     GET /v1/sessions/{id}
///
/// A line `~~~` separates requests; the first blank line ends a request's head, and everything
/// after it is the body, bytes as they are. Placeholders are filled in when a request is sent
/// (`RequestSequenceCheck`), since tokens change as the requests run.
public struct RequestScript {
    /// One request before its placeholders are filled in.
    public struct Entry: Sendable {
        public var method: [UInt8]
        public var target: [UInt8]
        public var headers: [(name: [UInt8], value: [UInt8])]
        public var body: [UInt8]
    }

    /// More requests than this in one input are ignored: each one costs a store's worth of checks.
    public static let maxRequests = 16

    public private(set) var entries: [Entry] = []

    public init(_ bytes: [UInt8]) {
        for chunk in Self.split(bytes, on: Array("\n~~~\n".utf8)).prefix(Self.maxRequests) {
            entries.append(Self.entry(chunk))
        }
    }

    private static func entry(_ chunk: ArraySlice<UInt8>) -> Entry {
        let parts = split(chunk, on: Array("\n\n".utf8), limit: 2)
        var lines = split(parts[0], on: [UInt8(ascii: "\n")]).map { line in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        let first = lines.isEmpty ? [] : lines.removeFirst()
        let requestLine = split(first, on: [UInt8(ascii: " ")], limit: 2)
        let headers = lines.compactMap { line -> (name: [UInt8], value: [UInt8])? in
            let field = split(line, on: [UInt8(ascii: ":")], limit: 2)
            guard field.count == 2 else { return nil }
            let value = field[1].first == UInt8(ascii: " ") ? field[1].dropFirst() : field[1]
            return (Array(field[0]), Array(value))
        }
        return Entry(
            method: Array(requestLine[0]),
            target: requestLine.count > 1 ? Array(requestLine[1]) : Array("/".utf8),
            headers: headers,
            body: parts.count > 1 ? Array(parts[1]) : [])
    }

    /// `bytes` cut at each occurrence of `separator`, at most `limit` pieces.
    static func split(_ bytes: ArraySlice<UInt8>, on separator: [UInt8], limit: Int = .max) -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index + separator.count <= bytes.endIndex, pieces.count + 1 < limit {
            if bytes[index..<index + separator.count].elementsEqual(separator) {
                pieces.append(bytes[start..<index])
                index += separator.count
                start = index
            } else {
                index += 1
            }
        }
        pieces.append(bytes[start..<bytes.endIndex])
        return pieces
    }

    static func split(_ bytes: [UInt8], on separator: [UInt8]) -> [ArraySlice<UInt8>] {
        split(bytes[...], on: separator)
    }
}
