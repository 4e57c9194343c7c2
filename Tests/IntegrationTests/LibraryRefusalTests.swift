import Testing

/// The refusals libmicrohttpd sends itself, before any handler runs, as docs/api.md ("Errors")
/// describes them: headers past a connection's memory get 431, a request line past it 414.
@Suite("Refusals libmicrohttpd answers itself")
struct LibraryRefusalTests {
    @Test("A request line that does not fit the connection's memory gets the status docs/api.md names")
    func overlongRequestLine() throws {
        try withServer { server in
            let client = try server.connect()
            let refused = try client.get("/v1/sessions/" + String(repeating: "a", count: 20_000))
            #expect(refused.status == 414)
            #expect(client.isClosed)
            #expect(try server.connect().get("/healthz").status == 200)
        }
    }
}
