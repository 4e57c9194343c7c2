import JSON
import Presentation
import SessionChecks
import Testing

@testable import PresentationAPI

/// The fast way through push, replace, set-root and present bodies (`OperationDecoding.plainScreenStep`)
/// must decide nothing the parser and `FieldReader` would decide otherwise: whatever it returns,
/// the general path returns for the same body; everything else it leaves to that path.
@Suite("Plain screen bodies, read without a tree")
struct PlainBodyTests {
    static let kinds: [OperationKind] = [.push, .replace, .setRoot]

    /// What the general path makes of `body`: the step, or nil when it refuses the body.
    static func general(_ kind: OperationKind, _ body: [UInt8], _ parser: JSONParser) -> Step? {
        guard let value = try? parser.parse(body), var fields = try? FieldReader(value) else { return nil }
        return try? OperationDecoding.step(kind, from: &fields)
    }

    @Test("Common bodies take the fast way, and it reads them as the parser does", arguments: kinds)
    func common(kind: OperationKind) throws {
        let parser = JSONParser()
        let bodies = [
            #"{"screen":"detail","params":{"itemId":"abc123","title":"Bench item","source":"wrk","variant":"b"}}"#,
            #"{"screen": "detail"}"#,
            #"{ "params" : { "n" : -12.50 , "ok" : true, "no": false, "none": null }, "screen" : "x", "title": "T" }"#,
            "{\n\t\"screen\": \"inbox\",\r\n\"params\": {},\n\"from\": \"s1\"\n}",
            #"{"screen":"a","title":null,"params":null,"from":null}"#,
            #"{"screen":"a","params":{"zero":0,"neg":-0,"big":12345678901234567890,"frac":0.001}}"#,
        ]
        for body in bodies {
            let bytes = Array(body.utf8)
            let plain = try #require(OperationDecoding.plainScreenStep(kind, body: bytes, parser: parser), "\(body)")
            #expect(plain == Self.general(kind, bytes, parser), "\(body)")
        }
    }

    @Test("Bodies it cannot take as they are go to the general path, valid or not")
    func leftToTheParser() {
        let parser = JSONParser()
        let bodies = [
            #"{"screen":"d\u00e9tail"}"#,  // an escape
            #"{"screen":"détail"}"#,  // beyond ASCII
            #"{"screen":"a","params":{"list":[1,2]}}"#,  // an array
            #"{"screen":"a","params":{"inner":{"x":1}}}"#,  // nested twice
            #"{"screen":"a","params":{"n":1e3}}"#,  // an exponent
            #"{"screen":"a","params":{"n":1,"n":2}}"#,  // a duplicate key, refused by the parser
            #"{"screen":"a","screen":"b"}"#,  // the same, outside
            #"{"screen":"a","parmas":{}}"#,  // unknown member
            #"{"screen":"a","params":"x"}"#,  // params not an object
            #"{"screen":"","params":{}}"#,  // an empty name, which ScreenSpec refuses
            #"{"screen":"a","from":""}"#,  // not a screen id
            #"{"screen":"a"} x"#,  // trailing data
            #"{"screen":"a""#,  // cut short
            "{\"screen\":\"a\"}\u{0C}",  // a form feed is not JSON's whitespace
        ]
        for body in bodies {
            let bytes = Array(body.utf8)
            #expect(OperationDecoding.plainScreenStep(.push, body: bytes, parser: parser) == nil, "\(body)")
        }
        // Some of those are valid, and the general path takes them.
        #expect(Self.general(.push, Array(#"{"screen":"d\u00e9tail"}"#.utf8), parser) != nil)
        #expect(Self.general(.push, Array(#"{"screen":"a","params":{"n":1e3}}"#.utf8), parser) != nil)
    }

    @Test("A present with a screen style takes the fast way, and it reads it as the parser does")
    func present() throws {
        let parser = JSONParser()
        let bodies = [
            #"{"style":"sheet","screen":"compose","title":"New message","params":{"draft":"x"}}"#,
            #"{"screen":"a","style":"modal"}"#,
            #"{"style":"fullScreen","screen":"a","from":"s1"}"#,
            #"{"style":"popover","screen":"a","params":null,"title":null}"#,
        ]
        for body in bodies {
            let bytes = Array(body.utf8)
            let plain = try #require(OperationDecoding.plainScreenStep(.present, body: bytes, parser: parser), "\(body)")
            #expect(plain == Self.general(.present, bytes, parser), "\(body)")
        }
        let left = [
            #"{"style":"alert","alert":{"actions":[{"id":"ok","title":"OK"}]}}"#,  // an alert
            #"{"style":"sheet","screen":"a","navigation":false}"#,  // a boolean member
            #"{"style":"sheet","screen":"a","navigation":true}"#,
            #"{"style":"drawer","screen":"a"}"#,  // no such style
            #"{"screen":"a"}"#,  // no style
            #"{"style":null,"screen":"a"}"#,
            #"{"style":"alert","screen":"a"}"#,  // an alert cannot show a screen
            #"{"style":"sheet","screen":"a","alert":{}}"#,  // a member the style does not read
        ]
        for body in left {
            #expect(OperationDecoding.plainScreenStep(.present, body: Array(body.utf8), parser: parser) == nil, "\(body)")
        }
        // A push knows no style: the fast way leaves it to the general one, which refuses it.
        let styled = Array(#"{"style":"sheet","screen":"a"}"#.utf8)
        #expect(OperationDecoding.plainScreenStep(.push, body: styled, parser: parser) == nil)
        #expect(Self.general(.push, styled, parser) == nil)
        #expect(Self.general(.present, Array(#"{"style":"sheet","screen":"a","navigation":false}"#.utf8), parser) != nil)
    }

    @Test("The parser's limits hold on the fast way too")
    func limits() {
        let body = Array(#"{"screen":"detail","params":{"key":"twelve bytes"}}"#.utf8)
        #expect(OperationDecoding.plainScreenStep(.push, body: body, parser: JSONParser()) != nil)
        for parser in [JSONParser(maxDepth: 1), JSONParser(maxStringBytes: 11), JSONParser(maxDepth: 0)] {
            #expect(OperationDecoding.plainScreenStep(.push, body: body, parser: parser) == nil)
            #expect(Self.general(.push, body, parser) == nil)
        }
    }

    @Test("On 24,000 generated bodies the fast way agrees with the general path wherever it answers")
    func generated() throws {
        var generator = BodyGenerator(seed: 0x5eed_cafe)
        let parsers = [JSONParser(), JSONParser(maxDepth: 1), JSONParser(maxStringBytes: 6)]
        let kinds = Self.kinds + [.present]
        var taken = 0
        var takenPresents = 0
        var leftValid = 0
        for round in 0..<24_000 {
            let kind = kinds[round % kinds.count]
            let body = generator.body(styled: kind == .present)
            let parser = parsers[round % 7 == 0 ? 1 + round % 2 : 0]
            let general = Self.general(kind, body, parser)
            guard let plain = OperationDecoding.plainScreenStep(kind, body: body, parser: parser) else {
                if general != nil { leftValid += 1 }
                continue
            }
            taken += 1
            if kind == .present { takenPresents += 1 }
            try #require(plain == general, "\(String(decoding: body, as: UTF8.self))")
        }
        // The generator must exercise both ways, or the comparison proves little.
        #expect(taken > 1_500)
        #expect(takenPresents > 150)
        #expect(leftValid > 300)
    }
}

/// The same for a creation's body (`OperationDecoding.plainCreation`), whose root screen
/// request nests one level deeper than a push's.
@Suite("Plain creation bodies, read without a tree")
struct PlainCreationBodyTests {
    /// What the general path makes of `body`: the root and lifetime, or nil when it refuses the body.
    static func general(_ body: [UInt8], _ parser: JSONParser) -> Creation? {
        guard let value = try? parser.parse(body), var fields = try? FieldReader(value),
            let (root, timeToLive) = try? OperationDecoding.creation(from: &fields)
        else { return nil }
        return Creation(root: root, timeToLive: timeToLive)
    }

    static func plain(_ body: [UInt8], _ parser: JSONParser) -> Creation? {
        OperationDecoding.plainCreation(body: body, parser: parser).map { Creation(root: $0.root, timeToLive: $0.timeToLive) }
    }

    struct Creation: Equatable {
        let root: ScreenSpec
        let timeToLive: Int?
    }

    @Test("Common bodies take the fast way, and it reads them as the parser does")
    func common() throws {
        let parser = JSONParser()
        let bodies = [
            #"{"root":{"screen":"inbox","title":"Inbox","params":{"folder":"all"}}}"#,
            #"{"root":{"screen":"inbox"}}"#,
            #"{"ttl":3600,"root":{"screen":"inbox","params":{"n":-1.5,"ok":true,"none":null}}}"#,
            #"{ "root" : { "params" : { } , "screen" : "a" } , "ttl" : 2147483647 }"#,
            #"{"root":{"screen":"a","title":null,"params":null},"ttl":null}"#,
            "{\n  \"root\": {\n    \"screen\": \"a\"\n  },\n  \"ttl\": 1\n}\n",
        ]
        for body in bodies {
            let bytes = Array(body.utf8)
            let plain = try #require(Self.plain(bytes, parser), "\(body)")
            #expect(plain == Self.general(bytes, parser), "\(body)")
        }
        let read = try #require(Self.plain(Array(bodies[2].utf8), parser))
        #expect(read.timeToLive == 3600)
        #expect(read.root.name == "inbox")
        #expect(read.root.paramsText.description == #"{"n":-1.5,"ok":true,"none":null}"#)
    }

    @Test("Bodies it cannot take as they are go to the general path, valid or not")
    func leftToTheParser() {
        let parser = JSONParser()
        let bodies = [
            #"{"root":{"screen":"détail"}}"#,  // an escape
            #"{"root":{"screen":"a","params":{"inner":{"x":1}}}}"#,  // nested once more
            #"{"root":{"screen":"a","from":"s1"}}"#,  // a route's member, unknown in a root
            #"{"root":{"screen":"a","style":"sheet"}}"#,
            #"{"root":{"screen":"a"},"root":{"screen":"b"}}"#,  // a duplicate key
            #"{"root":{"screen":"a","screen":"b"}}"#,
            #"{"root":{"screen":"a"},"ttl":1,"ttl":2}"#,
            #"{"root":{"screen":"a"},"ttl":0}"#,  // out of range
            #"{"root":{"screen":"a"},"ttl":2147483648}"#,
            #"{"root":{"screen":"a"},"ttl":-5}"#,
            #"{"root":{"screen":"a"},"ttl":1.5}"#,  // not whole
            #"{"root":{"screen":"a"},"ttl":60.0}"#,  // whole, but spelt as a fraction
            #"{"root":{"screen":"a"},"ttl":01}"#,  // a leading zero, which JSON refuses
            #"{"root":{"screen":"a"},"ttl":1e3}"#,  // an exponent
            #"{"root":{"screen":"a"},"ttl":"60"}"#,
            #"{"root":null}"#,
            #"{"root":"inbox"}"#,
            #"{"ttl":60}"#,  // no root
            #"{"root":{"title":"x"}}"#,  // no screen
            #"{"root":{"screen":"a"},"tll":60}"#,  // unknown member
            #"{"root":{"screen":"a"}} x"#,
            #"{"root":{"screen":"a"}"#,
        ]
        for body in bodies {
            #expect(Self.plain(Array(body.utf8), parser) == nil, "\(body)")
        }
        // Some of those are valid, and the general path takes them.
        for valid in [#"{"root":{"screen":"détail"}}"#, #"{"root":{"screen":"a","params":{"inner":{"x":1}}}}"#] {
            #expect(Self.general(Array(valid.utf8), parser) != nil, "\(valid)")
        }
    }

    @Test("The parser's limits hold on the fast way too")
    func limits() {
        let body = Array(#"{"root":{"screen":"inbox","params":{"key":"twelve bytes"}}}"#.utf8)
        #expect(Self.plain(body, JSONParser()) != nil)
        #expect(Self.plain(body, JSONParser(maxDepth: 3)) != nil)
        for parser in [JSONParser(maxDepth: 2), JSONParser(maxDepth: 1), JSONParser(maxStringBytes: 11), JSONParser(maxDepth: 0)] {
            #expect(Self.plain(body, parser) == nil)
            #expect(Self.general(body, parser) == nil)
        }
    }

    @Test("On 20,000 generated bodies the fast way agrees with the general path wherever it answers")
    func generated() throws {
        var generator = BodyGenerator(seed: 0xc0ff_ee00)
        let parsers = [JSONParser(), JSONParser(maxDepth: 2), JSONParser(maxStringBytes: 6)]
        var taken = 0
        var takenWithLifetime = 0
        var leftValid = 0
        for round in 0..<20_000 {
            let body = generator.creationBody()
            let parser = parsers[round % 7 == 0 ? 1 + round % 2 : 0]
            let general = Self.general(body, parser)
            guard let plain = Self.plain(body, parser) else {
                if general != nil { leftValid += 1 }
                continue
            }
            taken += 1
            if plain.timeToLive != nil { takenWithLifetime += 1 }
            try #require(plain == general, "\(String(decoding: body, as: UTF8.self))")
        }
        // The generator must exercise both ways, or the comparison proves little.
        #expect(taken > 600)
        #expect(takenWithLifetime > 300)
        #expect(leftValid > 300)
    }
}

/// Screen bodies that are mostly plain, with a few of everything that is not.
struct BodyGenerator {
    var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(state: seed) }

    mutating func next(_ bound: Int) -> Int { random.int(0..<bound) }

    mutating func pick(_ choices: [String]) -> String { choices[next(choices.count)] }

    mutating func blank() -> String {
        // Now and then a blank that JSON does not allow: a form feed, a no-break space.
        next(4) != 0 ? "" : next(40) == 0 ? pick(["\u{0C}", "\u{A0}"]) : pick([" ", "\n", "\t", "\r\n", "  "])
    }

    /// Mostly plain strings, a sixth of the time one that is not (or not valid).
    mutating func string() -> String {
        if next(6) != 0 { return pick([#""detail""#, #""a""#, #""Bench item""#, #""s1""#, #""/~""#]) }
        return pick([
            #""""#, #""x\ny""#, #""\u0041""#, #""é""#, "\"tab\tin\"", #""a\"b""#,
            "\"\(String(repeating: "z", count: 70))\"",
        ])
    }

    /// Mostly plain scalars, a sixth of the time anything else, valid or not.
    mutating func scalar() -> String {
        if next(6) != 0 { return pick([string(), "0", "-0", "12", "-3.25", "true", "false", "null"]) }
        return pick([
            "1e5", "1e999", "01", "1.", "-", ".5", "tru", "[]", "[1]", #"{"k":1}"#, "{}", "1E+2",
            String(repeating: "9", count: 310),
        ])
    }

    /// An object of `keys` in a random order, each kept with probability 3/4, now and then
    /// one more (a duplicate, or one that is unknown) and now and then broken.
    mutating func object(keys: [String], extra: [String], value: (inout BodyGenerator, String) -> String) -> String {
        var chosen = keys.filter { _ in next(4) != 0 }
        if next(6) == 0 { chosen.append(pick(extra)) }
        for index in chosen.indices.reversed() { chosen.swapAt(index, next(index + 1)) }
        let members = chosen.map { key in blank() + key + blank() + ":" + blank() + value(&self, key) + blank() }
        var text = "{" + blank() + members.joined(separator: next(40) == 0 ? ",," : ",") + "}"
        if next(40) == 0 { text.removeLast() }
        if next(40) == 0 { text += "x" }
        return blank() + text + blank()
    }

    /// A creation's body: mostly a root screen request and now and then a lifetime, of every
    /// spelling (valid or not, in range or not).
    mutating func creationBody() -> [UInt8] {
        let outer = [#""root""#, #""ttl""#]
        let text = object(keys: outer, extra: outer + [#""tll""#, #""from""#]) { generator, key in
            switch (key, generator.next(10)) {
            case (#""root""#, 0..<9): return String(decoding: generator.body(root: true), as: UTF8.self)
            case (#""ttl""#, 0..<6): return generator.pick(["1", "60", "3600", "86400", "2147483647", "null"])
            case (#""ttl""#, _):
                return generator.pick(["0", "-5", "1.5", "60.0", "01", "1e3", "2147483648", "99999999999999999999", #""60""#, "{}"])
            default: return generator.scalar()
            }
        }
        return Array(text.utf8)
    }

    /// A screen body (`root`: a creation's root, which has no `from`); `styled`, with a `style`
    /// member too, as a present's has (mostly one that shows a screen), and now and then `navigation`.
    mutating func body(styled: Bool = false, root: Bool = false) -> [UInt8] {
        let outer = [#""screen""#, #""params""#, #""title""#] + (root ? [] : [#""from""#]) + (styled ? [#""style""#] : [])
        let extra =
            outer + [#""parmas""#, #""scr\u0065en""#] + (styled ? [#""navigation""#, #""alert""#] : [#""style""#])
            + (root ? [#""from""#] : [])
        let text = object(keys: outer, extra: extra) { generator, key in
            switch (key, generator.next(8)) {
            case (#""style""#, 0..<7):
                return generator.pick([#""sheet""#, #""modal""#, #""fullScreen""#, #""popover""#, #""alert""#, #""drawer""#])
            case (#""navigation""#, _):
                return generator.pick(["true", "false", "null", #""yes""#])
            case (#""params""#, 0..<6):
                let inner = [#""itemId""#, #""n""#, #""title""#, #""ok""#, #""x""#]
                return generator.object(keys: inner, extra: inner + [#""é""#, #""k\"""#]) { generator, _ in
                    generator.scalar()
                }
            case (_, 0..<6):
                return generator.string()
            default:
                return generator.scalar()
            }
        }
        return Array(text.utf8)
    }
}
