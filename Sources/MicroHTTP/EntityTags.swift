/// Reads entity-tag lists (`If-None-Match`, `If-Match`) as RFC 9110 section 8.8.3 writes them.
enum EntityTags {
    /// True when `header` is `*` or lists a tag equal to `tag` by the weak comparison
    /// (`W/` ignored), the one `If-None-Match` uses; by the strong one (a weak tag equals
    /// none) when `strongly`, the one `If-Match` uses (RFC 9110 8.8.3.2). A list that cannot
    /// be read matches nothing.
    static func any(in header: String, matches tag: String, strongly: Bool = false) -> Bool {
        let wanted = opaque(tag)
        if strongly && tag.hasPrefix("W/") { return header.trimmingSpaces == "*" }
        var rest = Substring(header)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            if rest.isEmpty { return false }
            if rest.first == "*" { return true }
            let weak = rest.hasPrefix("W/")
            if weak { rest = rest.dropFirst(2) }
            guard rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") else { return false }
            if rest[...close] == wanted && !(weak && strongly) { return true }
            rest = rest[rest.index(after: close)...]
        }
    }

    /// The quoted part of a tag, without any `W/`.
    private static func opaque(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? Substring(tag).dropFirst(2) : Substring(tag)
    }
}
