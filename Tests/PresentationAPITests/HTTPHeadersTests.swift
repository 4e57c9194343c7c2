import Foundation
import Testing

@testable import MicroHTTP

@Suite("Header fields")
struct HTTPHeadersTests {
    @Test("Adding absent fields adds the members of Vary not named yet, once, and other fields only when absent")
    func addAbsentMergesVary() {
        var headers: HTTPHeaders = ["Vary": "Origin", "ETag": "\"1\""]
        headers.addAbsent(["vary": "origin", "ETag": "\"2\"", "Cache-Control": "no-store"])
        #expect(headers.values("Vary") == ["Origin"])
        #expect(headers.values("ETag") == ["\"1\""])
        #expect(headers["Cache-Control"] == "no-store")
        headers.addAbsent(["Vary": "Accept, Origin"])
        #expect(headers.values("Vary") == ["Origin", "Accept"])
        headers.addAbsent(["Vary": "accept"])
        #expect(headers.values("Vary") == ["Origin", "Accept"])
    }

    @Test("set replaces every field of that name, in any case, and keeps the others in order")
    func setReplaces() {
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Vary": "Origin", "ETag": "\"1\""]
        headers.add("vary", "Accept")
        headers.set("VARY", "Authorization")
        #expect(headers.fields.map(\.name) == ["Content-Type", "ETag", "VARY"])
        #expect(headers.values("Vary") == ["Authorization"])
        headers.set("Location", "/v1/sessions/x")
        #expect(headers["location"] == "/v1/sessions/x")
        #expect(headers.fields.count == 4)
    }

    @Test("set on fields read from C strings keeps them, as strings, before the new one")
    func setOnReadFields() {
        let names = ["Host", "X-Token", "Accept"]
        let values = ["example.org", "secret", "*/*"]
        var headers = names.withCStringArray { names in
            values.withCStringArray { values in
                let fields = (0..<3).map { HTTPHeaders.CStringField(name: names[$0], value: values[$0]) }
                return fields.withUnsafeBufferPointer { HTTPHeaders(cStrings: $0) }
            }
        }
        headers.set("x-token", "replaced")
        #expect(headers.fields.map(\.name) == ["Host", "Accept", "x-token"])
        #expect(headers["X-Token"] == "replaced")
        #expect(headers["host"] == "example.org")
    }

    /// Fields read from C strings (a request's) and added as strings (a response's, or ones
    /// set on a request) are looked up alike.
    private static func both(_ fields: [(String, String)]) -> [HTTPHeaders] {
        let read = fields.map(\.0).withCStringArray { names in
            fields.map(\.1).withCStringArray { values in
                let cFields = (0..<fields.count).map { HTTPHeaders.CStringField(name: names[$0], value: values[$0]) }
                return cFields.withUnsafeBufferPointer { HTTPHeaders(cStrings: $0) }
            }
        }
        return [read, HTTPHeaders(fields: fields.map { (name: $0.0, value: $0.1) })]
    }

    @Test("withValue lends the first value and says whether the field came again, anywhere")
    func withValueRepeats() {
        func lookup(_ headers: HTTPHeaders, _ name: String) -> (String?, Bool) {
            var found: (String?, Bool) = (nil, false)
            headers.withValue(name) { value, repeated in found = (value.map { String(decoding: $0, as: UTF8.self) }, repeated) }
            return found
        }
        for headers in Self.both([("Host", "h"), ("Authorization", "Bearer a"), ("Accept", "*/*"), ("authorization", "b")]) {
            #expect(lookup(headers, "AUTHORIZATION") == ("Bearer a", true))
            #expect(lookup(headers, "Host") == ("h", false))
            #expect(lookup(headers, "Cookie") == (nil, false))
        }
        // A second line added after the read ones counts too.
        var mixed = Self.both([("Authorization", "Bearer a")])[0]
        #expect(lookup(mixed, "Authorization") == ("Bearer a", false))
        mixed.add("Authorization", "Bearer b")
        #expect(lookup(mixed, "Authorization") == ("Bearer a", true))
    }

    @Test("lists reads two list fields in one walk, each as list would")
    func twoLists() {
        let fields = [("If-Match", "\"1\""), ("Host", "h"), ("if-none-match", "\"2\""), ("IF-MATCH", "\"3\"")]
        for headers in Self.both(fields) {
            #expect(headers.lists("If-Match", "If-None-Match") == ("\"1\", \"3\"", "\"2\""))
            #expect(headers.lists("If-None-Match", "Prefer") == (headers.list("If-None-Match"), nil))
        }
        #expect(HTTPHeaders().lists("If-Match", "If-None-Match") == (nil, nil))
    }
}

extension Array where Element == String {
    /// The strings as C strings, valid during `body`.
    fileprivate func withCStringArray<R>(_ body: ([UnsafePointer<CChar>]) -> R) -> R {
        let copies = map { strdup($0)! }
        defer { copies.forEach { free($0) } }
        return body(copies.map { UnsafePointer($0) })
    }
}
