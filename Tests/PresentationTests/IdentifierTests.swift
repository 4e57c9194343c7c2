import Foundation
import Presentation
import Testing

@Suite("Identifiers")
struct IdentifierTests {
    @Test("Random session ids are 22 URL-safe characters and differ")
    func randomSessionIDs() {
        let ids = (0..<1000).map { _ in SessionID.random() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.rawValue.utf8.count == 22)
            #expect(SessionID(rawValue: id.rawValue) == id)
        }
    }

    @Test("A session id's shard key is its first character's six bits: every key occurs, evenly")
    func shardKeys() throws {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for (value, character) in alphabet.enumerated() {
            let id = try #require(SessionID(rawValue: String(character) + String(repeating: "A", count: 20) + "A"))
            #expect(id.shardKey == value)
        }
        var counts = [Int](repeating: 0, count: 64)
        for _ in 0..<64_000 { counts[SessionID.random().shardKey] += 1 }
        // 1,000 expected per key; 6 standard deviations (about 190) either side never fail by chance.
        #expect(counts.allSatisfy { (800...1200).contains($0) }, "\(counts)")
    }

    /// Kept as bits, an id must still spell, compare and sort as its characters do: listings
    /// page through ids in that order, with `after=` the last id of the page before.
    @Test("A session id spells its characters back and orders as they do")
    func sessionIDCharactersAndOrder() throws {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var generator = SystemRandomNumberGenerator()
        var spelled: [String] = []
        for _ in 0..<2000 {
            let body = String((0..<21).map { _ in alphabet[Int(generator.next() % 64)] })
            let last = ["A", "Q", "g", "w"][Int(generator.next() % 4)]
            spelled.append(body + last)
        }
        // Every position at both ends of the alphabet, the 10th character straddling the two halves included.
        spelled += ["AAAAAAAAAAAAAAAAAAAAAA", "__________________________"].map { String($0.prefix(21)) + "w" }
        let ids = try spelled.map { try #require(SessionID(rawValue: $0)) }
        #expect(ids.map(\.rawValue) == spelled)
        #expect(ids.sorted().map(\.rawValue) == spelled.sorted())
        for (left, right) in zip(ids, ids.reversed()) {
            #expect((left < right) == (left.rawValue < right.rawValue))
            #expect((left == right) == (left.rawValue == right.rawValue))
        }
    }

    @Test("Random tokens are 43 URL-safe characters and differ")
    func randomTokens() {
        let tokens = (0..<1000).map { _ in SessionToken.random() }
        #expect(Set(tokens).count == tokens.count)
        for token in tokens {
            #expect(token.rawValue.utf8.count == 43)
            #expect(SessionToken(rawValue: token.rawValue) == token)
            #expect(!token.rawValue.contains("="))
        }
    }

    /// A store makes a new session's id and token from one draw of the secure generator: the
    /// two must still be whole, well formed, and each unlike every other.
    @Test("A store's new sessions have ids and tokens of the right shape, all different")
    func storeIdentities() throws {
        let store = InMemorySessionStore()
        let root = try ScreenSpec(name: "inbox")
        let created = try (0..<1000).map { _ in try store.create(root: root, timeToLive: nil, now: Date()) }
        let ids = created.map(\.session.id)
        #expect(Set(ids).count == ids.count)
        #expect(Set(created.map(\.token)).count == created.count)
        for new in created {
            #expect(SessionID(rawValue: new.session.id.rawValue) == new.session.id)
            #expect(SessionToken(rawValue: new.token.rawValue) == new.token)
            #expect(new.session.tokenDigest == SessionTokenDigest(of: new.token))
        }
        // The id's 16 bytes and the token's 32 are different parts of the draw: no token
        // spells its id's bytes (both spell bytes in order, base64's way).
        #expect(!created.contains { $0.token.rawValue.hasPrefix(String($0.session.id.rawValue.prefix(21))) })
    }

    @Test(
        "A session id from a URL is accepted only in the shape random ids have",
        arguments: [
            ("AAAAAAAAAAAAAAAAAAAAAA", true),
            ("abcXYZ019_-abcXYZ019_w", true),
            // 22 characters hold 132 bits, an id 128: the last one's low 4 bits are always zero.
            ("AAAAAAAAAAAAAAAAAAAAAB", false),
            ("abcXYZ019_-abcXYZ019_-", false),
            ("AAAAAAAAAAAAAAAAAAAAA", false),
            ("AAAAAAAAAAAAAAAAAAAAAAA", false),
            ("AAAAAAAAAAAAAAAAAAAAA=", false),
            ("AAAAAAAAAAAAAAAAAAAA+/", false),
            ("AAAAAAAAAAAAAAAAAAAA%2", false),
            ("AAAAAAAAAAAAAAAAAAAAé", false),
            ("", false),
        ])
    func sessionIDShape(raw: String, valid: Bool) {
        #expect((SessionID(rawValue: raw) != nil) == valid)
    }

    @Test(
        "A token's digest matches only that token",
        arguments: [
            (String(repeating: "a", count: 43), true),
            (String(repeating: "a", count: 42) + "b", false),
            ("b" + String(repeating: "a", count: 42), false),
            (String(repeating: "a", count: 42), false),
            (String(repeating: "a", count: 44), false),
            ("", false),
        ])
    func tokenMatches(presented: String, matches: Bool) {
        let token = SessionToken(rawValue: String(repeating: "a", count: 43))!
        #expect(SessionTokenDigest(of: token).matches(presented) == matches)
    }

    @Test("Node ids from clients accept any non-empty string up to 64 bytes")
    func nodeIDs() {
        #expect(ScreenID(rawValue: "s1")?.description == "s1")
        #expect(StackID(rawValue: "whatever")?.rawValue == "whatever")
        #expect(PresentationID(rawValue: String(repeating: "p", count: 64)) != nil)
        #expect(PresentationID(rawValue: String(repeating: "p", count: 65)) == nil)
        #expect(ScreenID(rawValue: "") == nil)
        #expect(StackID(rawValue: "") == nil)
    }

    @Test("Ids describe themselves by their raw values; a token never does")
    func descriptions() {
        #expect(Fixture.sessionID.description == "AAAAAAAAAAAAAAAAAAAAAA")
        #expect(!"\(Fixture.token)".contains(Fixture.token.rawValue))
    }
}
