import MicroHTTP

/// The session revision as an entity tag, and the conditional headers that carry it.
enum ETag {
    /// `"7"`: a strong tag, since a revision names exactly one tree.
    static func value(for revision: Int) -> String {
        "\"\(revision)\""
    }

    /// The revisions an `If-Match` or `If-None-Match` header names; nil for `*`.
    /// Accepts `"7"`, `W/"7"` and, leniently for hand-typed curl, a bare `7`.
    static func revisions(in header: String, name: String) throws(APIError) -> [Int]? {
        let trimmed = header.trimmingSpaces
        if trimmed == "*" { return nil }
        var revisions: [Int] = []
        for part in trimmed.split(separator: ",") {
            var tag = Substring(String(part).trimmingSpaces)
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            if tag.hasPrefix("\""), tag.hasSuffix("\""), tag.count >= 2 { tag = tag.dropFirst().dropLast() }
            guard let revision = Int(tag), revision >= 0 else {
                throw .invalidHeader(name: name, reason: "expected a revision such as \"3\"")
            }
            revisions.append(revision)
        }
        return revisions
    }
}

extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while scalars.first == " " || scalars.first == "\t" { scalars = scalars.dropFirst() }
        while scalars.last == " " || scalars.last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
