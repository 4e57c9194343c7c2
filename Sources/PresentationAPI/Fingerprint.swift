/// A stable 64-bit FNV-1a digest of a request, so an idempotency key can be checked
/// against a retry without keeping the whole body (Swift's Hasher is seeded per process).
enum Fingerprint {
    static func of(route: String, body: [UInt8]) -> [UInt8] {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in route.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        hash = (hash ^ 0) &* 0x100_0000_01b3
        for byte in body { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let length = UInt64(body.count)
        return withUnsafeBytes(of: hash.bigEndian) { Array($0) } + withUnsafeBytes(of: length.bigEndian) { Array($0) }
    }
}
