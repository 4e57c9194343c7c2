import Foundation
import MicroHTTP
import Presentation
import PresentationAPI
import Testing

/// `/metrics` counts requests by method: a label whose values the client chooses must stay few,
/// or every request with a new method name adds a series that is kept (and scanned) for good.
@Suite("Metrics of requests with unknown methods")
struct MethodMetricsTests {
    static let secret = "admin-0123456789-abcdefghijklmnopqrstuvwxyz"

    @Test("Requests with a hundred made-up methods add a bounded number of method labels")
    func madeUpMethodsAreFolded() throws {
        let api = APIConfiguration(adminToken: SessionTokenDigest(hashing: Self.secret))
        try withServer(api: api) { server in
            let client = try server.connect()
            for number in 0..<100 {
                // Any token is a method to libmicrohttpd, up to the connection's memory (16 KB).
                #expect(try client.request("M\(number)-" + String(repeating: "X", count: 1000), "/healthz").status == 405)
            }
            let text = try client.get("/metrics", token: Self.secret).text
            var methods = Set<Substring>()
            for line in text.split(separator: "\n") where line.hasPrefix("presentation_http_requests_total{") {
                guard let start = line.range(of: "method=\"")?.upperBound, let end = line[start...].firstIndex(of: "\"")
                else { continue }
                methods.insert(line[start..<end])
            }
            let labels = methods.count
            #expect(labels <= 8, "\(text.utf8.count) bytes of metrics")
        }
    }
}
