/// What a session keeps of its token: the SHA-256 of it, so a leaked copy of the stored
/// sessions (a memory dump, a database file) hands out no live token.
///
/// A token is 256 random bits, so a plain hash is enough: there is nothing to guess a
/// dictionary of, and no salt or slow hash would add strength.
public struct SessionTokenDigest: Hashable, Sendable, CustomStringConvertible {
    /// The 32 digest bytes.
    public let bytes: [UInt8]

    public init(of token: SessionToken) {
        self.init(hashing: token.rawValue)
    }

    /// The digest of any secret, such as an administrator's token read from a file.
    public init(hashing secret: String) {
        bytes = SHA256.digest(secret.utf8)
    }

    /// A digest read back from storage; nil unless it is 32 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// True when `presented` hashes to this digest, compared in constant time.
    ///
    /// Every byte is compared even after a difference is found, so response timing does not
    /// reveal how much of the digest a guess matched.
    public func matches(_ presented: String) -> Bool {
        matches(SessionTokenDigest(hashing: presented))
    }

    /// True when both are the digest of one token, compared in constant time; lets a caller
    /// hash a presented token before taking a session's lock.
    public func matches(_ other: SessionTokenDigest) -> Bool {
        guard other.bytes.count == bytes.count else { return false }
        var difference: UInt8 = 0
        for index in bytes.indices {
            difference |= bytes[index] ^ other.bytes[index]
        }
        return difference == 0
    }

    /// Lower-case hex, for logs and debugging; a digest reveals no token.
    public var description: String {
        bytes.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
