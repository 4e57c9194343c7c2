/// Matches a method and path against a table of patterns such as `/v1/sessions/{id}/push`.
///
/// A route table fits on one screen, so matching is a plain scan of split segments: no
/// regular expressions, no trie. `{name}` matches exactly one non-empty segment. Where
/// several patterns fit a path, those with the most literal segments win, so
/// `/v1/sessions/import` is never the session "import" of `/v1/sessions/{id}`.
public struct Router<Route: Sendable>: Sendable {
    /// What a lookup found.
    public enum Match {
        case found(Route, parameters: [String: String])
        /// The path exists, but not for this method: the methods it takes, for `Allow`.
        case methodNotAllowed(allowed: [HTTPMethod])
        case notFound
    }

    private enum Segment: Hashable, Sendable {
        case literal(String)
        case parameter(String)
    }

    private struct Entry: Sendable {
        let method: HTTPMethod
        let segments: [Segment]
        let route: Route
        /// How specific the pattern is: the number of its literal segments.
        let literals: Int
    }

    private var entries: [Entry] = []

    public init() {}

    /// Adds `route` for `method` on `pattern`. HEAD is answered by every GET route.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ route: Route) {
        let segments = Self.split(pattern).map { part -> Segment in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
        let literals = segments.count { if case .literal = $0 { true } else { false } }
        // Kept from most to least specific, in the order added among equals, so the scan
        // can stop at the first pattern less specific than one that fits.
        let index = entries.firstIndex { $0.literals < literals } ?? entries.endIndex
        entries.insert(Entry(method: method, segments: segments, route: route, literals: literals), at: index)
    }

    public func match(_ method: HTTPMethod, _ path: String) -> Match {
        let parts = Self.split(path)
        var allowed: [HTTPMethod] = []
        let lookup = method == .head ? HTTPMethod.get : method
        var fitting: Int?
        for entry in entries {
            if let fitting, entry.literals < fitting { break }
            guard Self.fits(entry.segments, parts) else { continue }
            fitting = entry.literals
            if entry.method == lookup { return .found(entry.route, parameters: Self.parameters(entry.segments, parts)) }
            if !allowed.contains(entry.method) { allowed.append(entry.method) }
        }
        guard !allowed.isEmpty else { return .notFound }
        if allowed.contains(.get) { allowed.append(.head) }
        return .methodNotAllowed(allowed: allowed)
    }

    /// Whether `parts` has the pattern's shape. Allocates nothing: it runs for every entry
    /// of the table on every request, and the parameters are taken only from the one that fits.
    /// Literals compare byte for byte, as the route table's ASCII names are meant.
    private static func fits(_ segments: [Segment], _ parts: [Substring]) -> Bool {
        guard segments.count == parts.count else { return false }
        for index in segments.indices {
            switch segments[index] {
            case .literal(let literal): guard parts[index].utf8.elementsEqual(literal.utf8) else { return false }
            case .parameter: guard !parts[index].isEmpty else { return false }
            }
        }
        return true
    }

    private static func parameters(_ segments: [Segment], _ parts: [Substring]) -> [String: String] {
        var parameters: [String: String] = [:]
        for index in segments.indices {
            if case .parameter(let name) = segments[index] { parameters[name] = String(parts[index]) }
        }
        return parameters
    }

    /// `/a/b/` and `/a/b` are the same path; an empty middle segment is kept (and fails).
    private static func split(_ path: String) -> [Substring] {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if parts.first == "" { parts.removeFirst() }
        if parts.last == "", !parts.isEmpty { parts.removeLast() }
        return parts
    }
}
