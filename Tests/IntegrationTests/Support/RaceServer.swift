import Foundation
import Synchronization
import Testing

/// The real binary with either storage, for races between clients of one session.
final class RaceServer {
    let directory = DataDirectory()
    let durable: Bool
    private(set) var process: ServerProcess
    private(set) var port: UInt16
    private let extra: [String]

    init(durable: Bool, _ extra: [String] = []) throws {
        self.durable = durable
        self.extra = extra
        (process, port) = try Self.start(durable: durable, directory: directory, extra)
    }

    private static func start(durable: Bool, directory: DataDirectory, _ extra: [String]) throws -> (ServerProcess, UInt16) {
        if durable { return try directory.startServer(extra) }
        let server = try ServerProcess.start(arguments: ["--port", "0", "--storage", "memory"] + extra, accessLog: false)
        return (server, UInt16(try server.port()))
    }

    func connect() throws -> HTTPConnection { try HTTPConnection(port: port) }

    /// Stops (SIGTERM, or SIGKILL when `crash`) and starts again on the same data.
    func restart(crash: Bool = false) throws {
        if crash { process.crash() } else { _ = try process.terminate() }
        (process, port) = try Self.start(durable: durable, directory: directory, extra)
    }

    deinit { _ = try? process.terminate() }
}

/// Waits until every thread has arrived, so that their requests go out together.
final class Barrier: Sendable {
    private let arrived = Atomic<Int>(0)
    private let count: Int
    init(_ count: Int) { self.count = count }
    func wait() {
        arrived.add(1, ordering: .acquiringAndReleasing)
        while arrived.load(ordering: .acquiring) < count { sched_yield() }
    }
}
