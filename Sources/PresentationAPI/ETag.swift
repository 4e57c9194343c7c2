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
    /// A well-formed tag that is no revision of ours (`"abc"`, `"007"`, one past `Int.max`) is
    /// still a tag: it matches nothing, so `If-Match` fails with 412 as for a stale one. Only
    /// what is no entity tag at all (`yesterday`, `"open`) is refused, with 400.
    static func revisions(in header: String, name: Condition) throws(APIError) -> [Int]? {
        let unreadable = APIError.invalidHeader(name: name.rawValue, reason: "expected a revision such as \"3\"")
        var rest = Substring(header).utf8[...]
        rest = rest.drop(while: isSpace)
        if rest.first == asterisk, rest.dropFirst().allSatisfy(isSpace) { return nil }
        var revisions: [Int] = []
        while true {
            rest = rest.drop { isSpace($0) || $0 == comma }
            if rest.isEmpty { return revisions }
            let weak = rest.starts(with: "W/".utf8)
            if weak { rest = rest.dropFirst(2) }
            let opaque: Substring.UTF8View.SubSequence
            let quoted = rest.first == quote
            if quoted {
                let body = rest.dropFirst()
                guard let close = body.firstIndex(of: quote) else { throw unreadable }
                opaque = body[..<close]
                // RFC 9110 8.8.3: etagc is any visible byte but DQUOTE, or obs-text.
                guard opaque.allSatisfy({ $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 }) else {
                    throw unreadable
                }
                rest = body[body.index(after: close)...]
            } else {
                let end = rest.firstIndex { isSpace($0) || $0 == comma } ?? rest.endIndex
                opaque = rest[..<end]
                rest = rest[end...]
            }
            // A tag ends the list or is followed by a comma.
            rest = rest.drop(while: isSpace)
            guard rest.isEmpty || rest.first == comma else { throw unreadable }
            guard let revision = revision(spelled: opaque) else {
                if quoted { continue }
                throw unreadable
            }
            if weak, name == .ifMatch { continue }
            revisions.append(revision)
        }
    }

    /// The revision whose tag's opaque part is exactly `digits` (as `value(for:)` spells it:
    /// no sign, no leading zero), or nil.
    private static func revision(spelled digits: Substring.UTF8View.SubSequence) -> Int? {
        guard let first = digits.first, first != zero || digits.count == 1 else { return nil }
        var revision = 0
        for digit in digits {
            guard (zero...zero + 9).contains(digit) else { return nil }
            let (shifted, overflowShift) = revision.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = shifted.addingReportingOverflow(Int(digit - zero))
            guard !overflowShift, !overflowSum else { return nil }
            revision = sum
        }
        return revision
    }

    private static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), asterisk = UInt8(ascii: "*")
    private static let zero = UInt8(ascii: "0")
    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// The conditional headers that carry tags.
    enum Condition: String {
        case ifMatch = "If-Match"
        case ifNoneMatch = "If-None-Match"
    }
}
