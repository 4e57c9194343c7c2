import Foundation
import Testing

/// `HTTPServer.stop()` while a durable answer is still parked when the grace period ends.
@Suite("Stopping with a write that outlasts the grace period")
struct ShutdownWithWriteInFlightTests {
    @Test("A change whose write outlasts the grace period does not abort the process when the server stops")
    func writeOutlastingGrace() async {
        // In a process of its own: libmicrohttpd's MHD_PANIC aborts the whole process.
        await #expect(processExitsWith: .success) {
            // TestServer's grace period is 2 s; the held write never lands.
            let (_, server, client, _) = try DurableAnswerTests.pendingPush()
            server.stop()
            // The process is still here, and the client is not left waiting: its connection is closed.
            exit(Self.closed(client) ? EXIT_SUCCESS : 3)
        }
    }

    /// True when the server closed `connection` (with or without a last answer) within a second.
    private static func closed(_ connection: HTTPConnection) -> Bool {
        do {
            _ = try connection.readResponse(to: "POST", timeout: .seconds(1))
            return connection.isClosed || connection.hasData(within: .seconds(1))
        } catch .closedByServer {
            return true
        } catch {
            return false
        }
    }
}
