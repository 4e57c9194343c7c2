import MicroHTTP

/// The values a script's placeholders stand for, and the request an entry becomes with them.
///
/// `{id}` and `{token}` are the first session's (the token follows rotations), `{other}` and
/// `{othertoken}` the second's, `{admin}` the administrator's token.
struct Placeholders {
    var values: [(name: [UInt8], value: [UInt8])]

    func fill(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(UInt8(ascii: "{")) else { return bytes }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        outer: while index < bytes.count {
            if bytes[index] == UInt8(ascii: "{") {
                for (name, value) in values where bytes[index...].starts(with: name) {
                    result.append(contentsOf: value)
                    index += name.count
                    continue outer
                }
            }
            result.append(bytes[index])
            index += 1
        }
        return result
    }

    /// The request libmicrohttpd would hand the API: strings end at a NUL (they are C strings
    /// there) and invalid UTF-8 is repaired as `String(cString:)` repairs it.
    func request(from entry: RequestScript.Entry) -> HTTPRequest {
        let target = fill(entry.target)
        let parts = RequestScript.split(target[...], on: [UInt8(ascii: "?")], limit: 2)
        let query: [(name: String, value: String?)] =
            parts.count < 2
            ? []
            : RequestScript.split(parts[1], on: [UInt8(ascii: "&")]).map { argument in
                let pair = RequestScript.split(argument, on: [UInt8(ascii: "=")], limit: 2)
                return (Self.text(pair[0]), pair.count > 1 ? Self.text(pair[1]) : nil)
            }
        let headers = entry.headers.map { (name: Self.text(fill($0.name)[...]), value: Self.text(fill($0.value)[...])) }
        return HTTPRequest(
            method: HTTPMethod(rawValue: Self.text(entry.method[...])),
            path: Self.text(parts[0]),
            query: query,
            headers: HTTPHeaders(fields: headers),
            body: fill(entry.body))
    }

    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}
