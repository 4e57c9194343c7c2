import Presentation
import Testing

@Suite("Token digests")
struct TokenDigestTests {
    /// FIPS 180-4 examples, edge lengths around the 55/56/64-byte padding boundaries, and
    /// messages of more than one whole block (digests from Python's hashlib).
    @Test(
        "SHA-256 gives the standard's digests",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (String(repeating: "a", count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
            (String(repeating: "a", count: 63), "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
            (String(repeating: "a", count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
            (String(repeating: "a", count: 119), "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
            (String(repeating: "a", count: 120), "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
            (String(repeating: "a", count: 200), "c2a908d98f5df987ade41b5fce213067efbcc21ef2240212a41e54b5e7c28ae5"),
            (String(repeating: "é→", count: 30), "f73995bf18f64e4a3f984f066ecb856089595feed1b1db7168b5d8acfbfe2a61"),
        ])
    func vectors(message: String, hex: String) {
        #expect(SessionTokenDigest(hashing: message).description == hex)
    }

    @Test("A digest matches its own token and no other, and never shows the token")
    func matching() {
        let digest = SessionTokenDigest(of: Fixture.token)
        #expect(digest.matches(Fixture.token.rawValue))
        #expect(!digest.matches(String(Fixture.token.rawValue.dropLast()) + "x"))
        #expect(!digest.matches(""))
        #expect(!digest.description.contains(Fixture.token.rawValue))
        #expect(SessionTokenDigest(bytes: digest.bytes) == digest)
        #expect(SessionTokenDigest(bytes: Array(digest.bytes.dropLast())) == nil)
    }

    @Test("Replacing a session's token revokes the old one and changes nothing else")
    func replacing() {
        var session = Fixture.session()
        let before = session
        let fresh = SessionToken.random()
        session.replaceToken(with: fresh)
        #expect(session.tokenDigest.matches(fresh.rawValue))
        #expect(!session.tokenDigest.matches(Fixture.token.rawValue))
        #expect(session.revision == before.revision && session.root == before.root)
    }
}
