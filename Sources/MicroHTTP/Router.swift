#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

    /// One segment of a pattern: a literal's bytes in `literalBytes`, or a parameter.
    ///
    /// The scan's data holds no references (segments, literal bytes and entries are plain
    /// values in flat arrays): when each entry kept an array of enums holding arrays, the
    /// scan retained and released one for every segment it compared, most of a match's cost.
    private struct Segment: Sendable {
        let start: Int
        /// The literal's length; -1 for a parameter.
        let count: Int
        var isParameter: Bool { count < 0 }
    }

    private struct Entry: Sendable {
        /// Into `methods`: compared only once an entry fits, as a string.
        let method: Int
        /// Its first segment in `segments`; it has as many as the path length it is filed under.
        let firstSegment: Int
        /// Into `patterns` and `parameterNames`.
        let pattern: Int
        let index: Int
        /// How specific the pattern is: the number of its literal segments.
        let literals: Int
    }

    /// Paths with more segments than this match nothing (the longest pattern has five).
    static let maxSegments = 16

    /// By number of segments: a path is compared only with the patterns of its own length,
    /// a handful, rather than scanning every entry of the table.
    private var entries = [[Entry]](repeating: [], count: maxSegments + 1)
    private var segments: [Segment] = []
    private var literalBytes: [UInt8] = []
    private var methods: [HTTPMethod] = []
    private var patterns: [String] = []
    /// Each pattern's parameter names, in order.
    private var parameterNames: [[String]] = []

    @usableFromInline init() {}

    mutating func add(_ method: HTTPMethod, _ pattern: String, index: Int) {
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: true)
        precondition(parts.count <= Self.maxSegments, "a route pattern has at most \(Self.maxSegments) segments")
        let firstSegment = segments.count
        var names: [String] = []
        for part in parts {
            if part.hasPrefix("{") && part.hasSuffix("}") {
                names.append(String(part.dropFirst().dropLast()))
                segments.append(Segment(start: 0, count: -1))
            } else {
                segments.append(Segment(start: literalBytes.count, count: part.utf8.count))
                literalBytes.append(contentsOf: part.utf8)
            }
        }
        let methodNumber = methods.firstIndex(of: method) ?? methods.endIndex
        if methodNumber == methods.endIndex { methods.append(method) }
        patterns.append(pattern)
        parameterNames.append(names)
        let entry = Entry(
            method: methodNumber, firstSegment: firstSegment, pattern: patterns.count - 1, index: index,
            literals: parts.count - names.count)
        // Kept from most to least specific, in the order added among equals, so the scan
        // can stop at the first pattern less specific than one that fits.
        let position = entries[parts.count].firstIndex { $0.literals < entry.literals } ?? entries[parts.count].endIndex
        entries[parts.count].insert(entry, at: position)
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
        let candidates = entries[parts.count]
        for position in candidates.indices {
            let entry = candidates[position]
            if let fitting, entry.literals < fitting { break }
            guard fits(entry, bytes, parts) else { continue }
            fitting = entry.literals
            if methods[entry.method] == lookup { return .found(entry.index, parameters(entry, path, parts)) }
            if !allowed.contains(methods[entry.method]) { allowed.append(methods[entry.method]) }
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

    /// Whether the path's segments, as many as the entry's, have its shape. Literals compare
    /// byte for byte, as the route table's ASCII names are meant; from the last segment back,
    /// where patterns of one length differ (`.../{id}/push`, `.../{id}/pop`).
    private func fits(_ entry: Entry, _ bytes: UnsafeBufferPointer<UInt8>, _ parts: UnsafeBufferPointer<Range<Int>>) -> Bool {
        segments.withUnsafeBufferPointer { segments in
            literalBytes.withUnsafeBufferPointer { literals in
                for index in parts.indices.reversed() {
                    let part = parts[index]
                    let segment = segments[entry.firstSegment + index]
                    if segment.isParameter {
                        guard !part.isEmpty else { return false }
                    } else {
                        guard segment.count == part.count,
                            memcmp(literals.baseAddress! + segment.start, bytes.baseAddress! + part.lowerBound, part.count) == 0
                        else { return false }
                    }
                }
                return true
            }
        }
    }

    private func parameters(_ entry: Entry, _ path: String, _ parts: UnsafeBufferPointer<Range<Int>>) -> RouteParameters {
        var parameters = RouteParameters(pattern: patterns[entry.pattern])
        let names = parameterNames[entry.pattern]
        var named = 0
        let utf8 = path.utf8
        for index in parts.indices where segments[entry.firstSegment + index].isParameter {
            let range = parts[index]
            let lower = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
            let upper = utf8.index(lower, offsetBy: range.count)
            parameters.append((name: names[named], value: path[lower..<upper]))
            named += 1
        }
        return parameters
    }
}
