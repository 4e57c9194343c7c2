/// What a session keeps of its token: the SHA-256 of it, so a leaked copy of the stored
/// sessions (a memory dump, a database file) hands out no live token.
///
/// A token is 256 random bits, so a plain hash is enough: there is nothing to guess a
/// dictionary of, and no salt or slow hash would add strength.
public struct SessionTokenDigest: Hashable, Sendable, CustomStringConvertible {
    /// The 32 digest bytes as four words, big-endian: held inline rather than in an array,
    /// which would be one more heap block for every session (docs/performance.md).
    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// The 32 digest bytes.
    public var bytes: [UInt8] {
        // The words hold the digest most significant byte first: laid out big-endian, they are it.
        withUnsafeBytes(of: (words.0.bigEndian, words.1.bigEndian, words.2.bigEndian, words.3.bigEndian)) { Array($0) }
    }

    public init(of token: SessionToken) {
        self.init(hashing: token.rawValue)
    }

    /// The digest of any secret, such as an administrator's token read from a file.
    public init(hashing secret: String) {
        var secret = secret
        words = secret.withUTF8 { SHA256.hash($0) }
    }

    /// The digest of a secret's UTF-8 bytes, such as a token read in place from a header.
    public init(hashing secret: UnsafeBufferPointer<UInt8>) {
        words = SHA256.hash(secret)
    }

    /// A digest read back from storage; nil unless it is 32 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.init(digest: bytes)
    }

    private init(digest: [UInt8]) {
        let word = { (index: Int) in digest[index * 8..<index * 8 + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        words = (word(0), word(1), word(2), word(3))
    }

    /// True when `presented` hashes to this digest, compared in constant time.
    ///
    /// Every word is compared even after a difference is found, so response timing does not
    /// reveal how much of the digest a guess matched.
    public func matches(_ presented: String) -> Bool {
        matches(SessionTokenDigest(hashing: presented))
    }

    /// True when both are the digest of one token, compared in constant time; lets a caller
    /// hash a presented token before taking a session's lock.
    public func matches(_ other: SessionTokenDigest) -> Bool {
        let difference =
            (words.0 ^ other.words.0) | (words.1 ^ other.words.1) | (words.2 ^ other.words.2) | (words.3 ^ other.words.3)
        return difference == 0
    }

    public static func == (left: SessionTokenDigest, right: SessionTokenDigest) -> Bool {
        left.matches(right)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    /// Lower-case hex, for logs and debugging; a digest reveals no token.
    public var description: String {
        bytes.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
