import JSON
import Presentation

/// A digest of a request, so an idempotency key can be checked against a retry without
/// keeping the whole body: the SHA-256 of the route, a 0, and the body.
///
/// Not the 64-bit FNV-1a it once was: that digest is no more than its arithmetic, and two
/// bodies of one length with the same FNV-1a are found in minutes on a laptop. A client
/// that sent one under a key and the other as its "retry" was answered with the first
/// reply (200, `Idempotent-Replayed`) for a request never applied, where the contract
/// promises 422 `idempotency_key_reused` for any other request (FingerprintCollisionTests).
enum Fingerprint {
    /// The digest of `route` and the JSON `body` holds, not of how it is written: a retry that
    /// encodes the same request again, with members in another order (a client's dictionary,
    /// whose order Swift and Kotlin seed per process) or other spacing, is the same request.
    /// The body is read once more for it, only on a request with an `Idempotency-Key` (the
    /// route has already read it as valid, with the same `parser`). An empty body is `{}`, as
    /// the routes that take one read it (a pop, a dismiss); one that is not JSON counts as written.
    static func of(route: String, json body: [UInt8], parser: JSONParser) -> [UInt8] {
        digest(route: route, body: canonical(body, parser: parser))
    }

    /// What a keyed change is matched by against the reply kept under its key: `recorded`, the
    /// digest of its JSON (`of(route:json:parser:)`), which goes with its reply, or one of the
    /// 16-byte FNV-1a digests that earlier servers kept, of its JSON or of its bytes. A durable
    /// session's replies outlive a restart, which is when clients retry: a reply stored before
    /// the upgrade still answers a retry of the same request, where the new digest alone
    /// refused it as another request (422). Those replies go as the session's newer keys push
    /// them out; every reply recorded from now on is matched by SHA-256 alone.
    struct Keyed: Sendable {
        let recorded: [UInt8]
        private let ofJSON: [UInt8]
        private let ofBytes: [UInt8]

        /// An unkeyed change's: nothing is recorded or compared.
        static let none = Keyed(recorded: [], ofJSON: [], ofBytes: [])

        private init(recorded: [UInt8], ofJSON: [UInt8], ofBytes: [UInt8]) {
            self.recorded = recorded
            self.ofJSON = ofJSON
            self.ofBytes = ofBytes
        }

        init(route: String, json body: [UInt8], parser: JSONParser) {
            let canonical = Fingerprint.canonical(body, parser: parser)
            self.init(
                recorded: Fingerprint.digest(route: route, body: canonical),
                ofJSON: Fingerprint.fnv(route: route, body: canonical),
                ofBytes: Fingerprint.fnv(route: route, body: body))
        }

        /// Whether a reply kept with `fingerprint` answers this request. The earlier digests
        /// are 16 bytes, so a reply recorded with SHA-256 (32) is matched by it alone.
        func matches(_ fingerprint: [UInt8]) -> Bool {
            fingerprint == recorded || fingerprint == ofJSON || fingerprint == ofBytes
        }
    }

    /// The bytes a body is digested as: its JSON written with every object's members sorted,
    /// `{}` for an empty body, the body itself when it is not JSON.
    private static func canonical(_ body: [UInt8], parser: JSONParser) -> [UInt8] {
        guard let value = body.isEmpty ? .object([]) : try? parser.parse(body) else { return body }
        var writer = JSONWriter(capacity: body.count)
        writer.write(canonical(value))
        return writer.bytes
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

    /// The SHA-256 of the route's bytes, a 0 (no route holds one), and the body: 32 bytes.
    private static func digest(route: String, body: [UInt8]) -> [UInt8] {
        let message = Array(route.utf8) + [0] + body
        let words = message.withUnsafeBufferPointer { SHA256.hash($0) }
        return withUnsafeBytes(of: (words.0.bigEndian, words.1.bigEndian, words.2.bigEndian, words.3.bigEndian)) {
            Array($0)
        }
    }

    /// The digest earlier servers kept: FNV-1a over the route, a 0 and the body, then the
    /// body's length, 16 bytes. Read only to match replies they stored.
    private static func fnv(route: String, body: [UInt8]) -> [UInt8] {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in route.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        hash = (hash ^ 0) &* 0x100_0000_01b3
        for byte in body { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let length = UInt64(body.count)
        return withUnsafeBytes(of: hash.bigEndian) { Array($0) } + withUnsafeBytes(of: length.bigEndian) { Array($0) }
    }
}
