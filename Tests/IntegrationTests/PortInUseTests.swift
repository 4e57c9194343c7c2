import Foundation
import Testing

/// A busy port is the commonest start-up failure: every line about it must name the port asked for.
@Suite("Starting on a port in use")
struct PortInUseTests {
    @Test("A port another process listens on stops start-up with 1, and every line names that port")
    func portInUse() throws {
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(holder >= 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && listen(holder, 1) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(holder, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))

        let (server, exited) = try ServerProcess.startOrExit(arguments: ["--port", "\(port)"])
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        try #require(exited, "the server started on a port in use")
        #expect(server.process.terminationStatus == 1)
        #expect(server.errorOutput.contains("127.0.0.1:\(port)") && server.errorOutput.contains("in use"), "\(server.errorOutput)")
        let lines = server.logLines()
        #expect(lines.contains { $0["event"] as? String == "start_failed" })
        // libmicrohttpd's own line said "Failed to bind to port 0", the port it was handed
        // (the address went in an option): beside ours it read as a second, different failure.
        for line in lines where line["event"] as? String == "libmicrohttpd" {
            let message = line["message"] as? String ?? ""
            #expect(message.contains("\(port)"), "\(message)")
        }
    }
}
