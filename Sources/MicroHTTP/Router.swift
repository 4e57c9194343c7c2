import Foundation

/// Matches a method and path against a table of patterns such as `/v1/sessions/{id}/push`.
///
/// A route table fits on one screen, so matching is a plain scan: no regular expressions,
/// no trie. `{name}` matches exactly one non-empty segment. Where several patterns fit a
/// path, those with the most literal segments win, so `/v1/sessions/import` is never the
/// session "import" of `/v1/sessions/{id}`.
///
/// Every request is matched, so the scan works on the path's UTF-8 bytes and allocates
/// nothing until it has its match (docs/performance.md). The table itself is not generic
/// (`RouteTable`): only the last step, from an entry's index to its `Route`, is, and that
/// step is inlinable so that it is specialised in the module that names `Route`.
public struct Router<Route: Sendable>: Sendable {
    /// What a lookup found.
    public enum Match {
        case found(Route, parameters: RouteParameters)
        /// The path exists, but not for this method: the methods it takes, for `Allow`.
        case methodNotAllowed(allowed: [HTTPMethod])
        case notFound
    }

    @usableFromInline var table = RouteTable()
    @usableFromInline var routes: [Route] = []

    public init() {}

    /// Adds `route` for `method` on `pattern`. HEAD is answered by every GET route.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ route: Route) {
        table.add(method, pattern, index: routes.count)
        routes.append(route)
    }

    @inlinable
    public func match(_ method: HTTPMethod, _ path: String) -> Match {
        switch table.match(method, path) {
        case .found(let index, let parameters): .found(routes[index], parameters: parameters)
        case .methodNotAllowed(let allowed): .methodNotAllowed(allowed: allowed)
        case .notFound: .notFound
        }
    }
}

/// The `{name}` segments of a matched path, in the pattern's order.
///
/// Every API request has one or two (`{id}`, `{pid}`), so two are kept inline and the
/// values are slices of the path: matching allocates nothing for them.
public struct RouteParameters: Sendable {
    public typealias Pair = (name: String, value: Substring)

    /// The pattern that matched, as it was added: a label for logs and metrics that carries no ids.
    public let pattern: String
    private var first: Pair?
    private var second: Pair?
    /// Those after the second, for patterns with more.
    private var rest: [Pair] = []

    init(pattern: String) {
        self.pattern = pattern
    }

    mutating func append(_ pair: Pair) {
        if first == nil {
            first = pair
        } else if second == nil {
            second = pair
        } else {
            rest.append(pair)
        }
    }

    /// The segment the pattern named `name`, as it appeared in the path.
    public subscript(name: String) -> Substring? {
        if let first, first.name == name { return first.value }
        if let second, second.name == name { return second.value }
        return rest.first { $0.name == name }?.value
    }
}

/// The untyped route table behind `Router`: patterns as bytes, matched to an entry's index.
@usableFromInline
struct RouteTable: Sendable {
    @usableFromInline enum Match {
        case found(Int, RouteParameters)
        case methodNotAllowed([HTTPMethod])
        case notFound
    }

    private enum Segment: Sendable {
        case literal([UInt8])
        case parameter(String)
    }

    private struct Entry: Sendable {
        let method: HTTPMethod
        let pattern: String
        let segments: [Segment]
        let index: Int
        /// How specific the pattern is: the number of its literal segments.
        let literals: Int
    }

    /// Paths with more segments than this match nothing (the longest pattern has five).
    static let maxSegments = 16

    /// By number of segments: a path is compared only with the patterns of its own length,
    /// a handful, rather than scanning (and retaining) every entry of the table.
    private var entries = [[Entry]](repeating: [], count: maxSegments + 1)

    @usableFromInline init() {}

    mutating func add(_ method: HTTPMethod, _ pattern: String, index: Int) {
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: true)
        precondition(parts.count <= Self.maxSegments, "a route pattern has at most \(Self.maxSegments) segments")
        let segments = parts.map { part -> Segment in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(Array(part.utf8))
        }
        let literals = segments.count { if case .literal = $0 { true } else { false } }
        // Kept from most to least specific, in the order added among equals, so the scan
        // can stop at the first pattern less specific than one that fits.
        let position = entries[segments.count].firstIndex { $0.literals < literals } ?? entries[segments.count].endIndex
        entries[segments.count].insert(
            Entry(method: method, pattern: pattern, segments: segments, index: index, literals: literals), at: position)
    }

    @usableFromInline func match(_ method: HTTPMethod, _ path: String) -> Match {
        // withUTF8 on a copy: a native string (every path is one) hands its bytes over without copying them.
        var contiguous = path
        return contiguous.withUTF8 { bytes in
            withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: Self.maxSegments) { buffer in
                guard let count = Self.segments(of: bytes, into: buffer) else { return .notFound }
                return match(method, path, bytes, UnsafeBufferPointer(rebasing: buffer[..<count]))
            }
        }
    }

    private func match(
        _ method: HTTPMethod, _ path: String, _ bytes: UnsafeBufferPointer<UInt8>, _ parts: UnsafeBufferPointer<Range<Int>>
    ) -> Match {
        let lookup = method == .head ? HTTPMethod.get : method
        var allowed: [HTTPMethod] = []
        var fitting: Int?
        for entry in entries[parts.count] {
            if let fitting, entry.literals < fitting { break }
            guard Self.fits(entry.segments, bytes, parts) else { continue }
            fitting = entry.literals
            if entry.method == lookup { return .found(entry.index, Self.parameters(entry, path, parts)) }
            if !allowed.contains(entry.method) { allowed.append(entry.method) }
        }
        guard !allowed.isEmpty else { return .notFound }
        if allowed.contains(.get) { allowed.append(.head) }
        return .methodNotAllowed(allowed)
    }

    /// The byte ranges of the path's segments; nil when there are too many to match anything.
    /// `/a/b/` and `/a/b` are the same path; an empty middle segment is kept (and fits nothing).
    private static func segments(
        of bytes: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<Range<Int>>
    ) -> Int? {
        let slash = UInt8(ascii: "/")
        var start = bytes.first == slash ? 1 : 0
        var count = 0
        for index in start...bytes.count where index == bytes.count || bytes[index] == slash {
            guard count < buffer.count else { return nil }
            buffer.initializeElement(at: count, to: start..<index)
            count += 1
            start = index + 1
        }
        // One trailing slash leaves an empty last segment: it is not a segment.
        if count > 0, buffer[count - 1].isEmpty { count -= 1 }
        return count
    }

    /// Whether the path's segments, as many as the pattern's, have its shape. Literals compare
    /// byte for byte, as the route table's ASCII names are meant.
    private static func fits(
        _ segments: [Segment], _ bytes: UnsafeBufferPointer<UInt8>, _ parts: UnsafeBufferPointer<Range<Int>>
    ) -> Bool {
        for index in segments.indices {
            let part = parts[index]
            switch segments[index] {
            case .literal(let literal):
                guard literal.count == part.count,
                    literal.withUnsafeBufferPointer({ memcmp($0.baseAddress!, bytes.baseAddress! + part.lowerBound, part.count) }) == 0
                else {
                    return false
                }
            case .parameter:
                guard !part.isEmpty else { return false }
            }
        }
        return true
    }

    private static func parameters(_ entry: Entry, _ path: String, _ parts: UnsafeBufferPointer<Range<Int>>)
        -> RouteParameters
    {
        var parameters = RouteParameters(pattern: entry.pattern)
        let utf8 = path.utf8
        for index in entry.segments.indices {
            guard case .parameter(let name) = entry.segments[index] else { continue }
            let range = parts[index]
            let lower = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
            let upper = utf8.index(lower, offsetBy: range.count)
            parameters.append((name: name, value: path[lower..<upper]))
        }
        return parameters
    }
}
