import Foundation
import Testing

/// `--host`: README says `0.0.0.0` or `::` listens on all addresses.
@Suite("Listening on all addresses")
struct ListenAddressTests {
    @Test("--host :: answers IPv6 and IPv4 clients alike")
    func unspecifiedIPv6() throws {
        let server = try ServerProcess.start(arguments: ["--host", "::", "--port", "0"], accessLog: false)
        defer { _ = try? server.terminate() }
        let port = try server.port()
        let status = { (host: String) in
            try Curl.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "3", "http://\(host):\(port)/healthz"])
        }
        let ipv6 = try status("[::1]")
        let ipv4 = try status("127.0.0.1")
        #expect(ipv6 == "200", "an IPv6 client")
        #expect(ipv4 == "200", "an IPv4 client (curl's 000: the connection was refused)")
    }
}
