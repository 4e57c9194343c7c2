/// One file as it is served: its bytes, its entity tag, and what it was read from.
struct StaticFile: Sendable {
    /// Sent without a copy by every answer (`.shared`), a 304's too: libmicrohttpd sends no
    /// body for a 304 but states the 200's length from it (RFC 9110 8.6).
    let bytes: SharedBytes
    /// Device, inode, size, modification and status change times when read: a change means reading again.
    let identity: FileSystem.Identity
    let mediaType: MediaType
    /// A strong tag from the content itself, so equal bytes always get equal tags.
    let entityTag: String

    init(bytes: [UInt8], identity: FileSystem.Identity, mediaType: MediaType) {
        self.bytes = bytes.withUnsafeBufferPointer { SharedBytes(copying: $0) }
        self.identity = identity
        self.mediaType = mediaType
        entityTag = "\"\(String(bytes.count, radix: 16))-\(Self.fingerprint(bytes))\""
    }

    /// FNV-1a, 64 bits, in hex: not cryptographic, only a change detector for our own files.
    static func fingerprint(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
