import Foundation
import Testing

@testable import MicroHTTP

@Suite("Header fields")
struct HTTPHeadersTests {
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
}

extension Array where Element == String {
    /// The strings as C strings, valid during `body`.
    fileprivate func withCStringArray<R>(_ body: ([UnsafePointer<CChar>]) -> R) -> R {
        let copies = map { strdup($0)! }
        defer { copies.forEach { free($0) } }
        return body(copies.map { UnsafePointer($0) })
    }
}
