import JSON

/// A stable 64-bit FNV-1a digest of a request, so an idempotency key can be checked
/// against a retry without keeping the whole body (Swift's Hasher is seeded per process).
enum Fingerprint {
    /// The digest of `route` and the JSON `body` holds, not of how it is written: a retry that
    /// encodes the same request again, with members in another order (a client's dictionary,
    /// whose order Swift and Kotlin seed per process) or other spacing, is the same request.
    /// The body is read once more for it, only on a request with an `Idempotency-Key` (the
    /// route has already read it as valid, with the same `parser`). An empty body is `{}`, as
    /// the routes that take one read it (a pop, a dismiss); one that is not JSON counts as written.
    static func of(route: String, json body: [UInt8], parser: JSONParser) -> [UInt8] {
        guard let value = body.isEmpty ? .object([]) : try? parser.parse(body) else { return of(route: route, body: body) }
        var writer = JSONWriter(capacity: body.count)
        writer.write(canonical(value))
        return of(route: route, body: writer.bytes)
    }

    /// What a keyed change is matched by against the reply kept under its key: `recorded`, the
    /// digest of its JSON (`of(route:json:parser:)`), which goes with its reply, or that of its
    /// bytes (`of(route:body:)`), which servers before canonical fingerprints kept. A durable
    /// session's replies outlive a restart, which is when clients retry: a reply stored
    /// before the upgrade still answers a retry of the same bytes (the same bytes are the
    /// same request), where the JSON digest alone refused it as another request (422).
    struct Keyed: Sendable {
        let recorded: [UInt8]
        private let ofBytes: [UInt8]

        /// An unkeyed change's: nothing is recorded or compared.
        static let none = Keyed(recorded: [], ofBytes: [])

        private init(recorded: [UInt8], ofBytes: [UInt8]) {
            self.recorded = recorded
            self.ofBytes = ofBytes
        }

        init(route: String, json body: [UInt8], parser: JSONParser) {
            self.init(
                recorded: Fingerprint.of(route: route, json: body, parser: parser),
                ofBytes: Fingerprint.of(route: route, body: body))
        }

        /// Whether a reply kept with `fingerprint` answers this request.
        func matches(_ fingerprint: [UInt8]) -> Bool {
            fingerprint == recorded || fingerprint == ofBytes
        }
    }

    /// `value` with every object's members sorted by key (keys are unique: the parser refuses
    /// duplicates), so that two spellings of one value write the same bytes.
    private static func canonical(_ value: JSONValue) -> JSONValue {
        switch value {
        case .null, .bool, .number, .string: value
        case .array(let items): .array(items.map(canonical))
        case .object(let members):
            .object(
                members.map { JSONMember($0.key, canonical($0.value)) }
                    .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
        }
    }

    static func of(route: String, body: [UInt8]) -> [UInt8] {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in route.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        hash = (hash ^ 0) &* 0x100_0000_01b3
        for byte in body { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let length = UInt64(body.count)
        return withUnsafeBytes(of: hash.bigEndian) { Array($0) } + withUnsafeBytes(of: length.bigEndian) { Array($0) }
    }
}
