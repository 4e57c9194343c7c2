import MicroHTTP

/// The session revision as an entity tag, and the conditional headers that carry it.
enum ETag {
    /// `"7"`: a strong tag, since a revision names exactly one tree.
    ///
    /// Spelled digit by digit: every answer about a session carries one, and interpolation
    /// went through the general formatting machinery. Up to 13 digits it is a small string,
    /// kept inline with no allocation.
    static func value(for revision: Int) -> String {
        let digits = revision.magnitude
        var length = 1
        var scale: UInt = 1
        while digits / scale >= 10 {
            scale *= 10
            length += 1
        }
        let sign = revision < 0 ? 1 : 0
        return String(unsafeUninitializedCapacity: length + sign + 2) { buffer in
            buffer[0] = UInt8(ascii: "\"")
            if sign == 1 { buffer[1] = UInt8(ascii: "-") }
            var rest = digits
            for index in stride(from: sign + length, through: sign + 1, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            buffer[length + sign + 1] = UInt8(ascii: "\"")
            return length + sign + 2
        }
    }

    /// The revisions an `If-Match` or `If-None-Match` header names; nil for `*`.
    /// Accepts `"7"`, `W/"7"` and, leniently for hand-typed curl, a bare `7`.
    ///
    /// RFC 9110 compares tags strongly for `If-Match` (13.1.1) and weakly for `If-None-Match`
    /// (13.1.2): a weak tag matches no revision in the first, and its revision in the second.
    static func revisions(in header: String, name: Condition) throws(APIError) -> [Int]? {
        let trimmed = header.trimmingSpaces
        if trimmed == "*" { return nil }
        var revisions: [Int] = []
        for part in trimmed.split(separator: ",") {
            var tag = part.trimmingSpaces
            let weak = tag.hasPrefix("W/")
            if weak { tag = tag.dropFirst(2) }
            if tag.hasPrefix("\""), tag.hasSuffix("\""), tag.count >= 2 { tag = tag.dropFirst().dropLast() }
            guard let revision = Int(tag), revision >= 0 else {
                throw .invalidHeader(name: name.rawValue, reason: "expected a revision such as \"3\"")
            }
            if weak, name == .ifMatch { continue }
            revisions.append(revision)
        }
        return revisions
    }

    /// The conditional headers that carry tags.
    enum Condition: String {
        case ifMatch = "If-Match"
        case ifNoneMatch = "If-None-Match"
    }
}
