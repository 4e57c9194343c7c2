import Foundation

/// A client that reads nothing, with a small receive buffer (`HTTPConnection`'s
/// `receiveBuffer`): once what the server sends it fills both sides' buffers, not even the end
/// of its answer can be sent, and a stop that waits for it waits out its grace period.
enum StalledReader {
    /// Opens an event stream of `session` that is never read, then makes changes whose events
    /// fill its buffers (`client` makes them).
    static func eventStream(port: UInt16, of session: CreatedSession, changedBy client: HTTPConnection) throws
        -> HTTPConnection
    {
        let stalled = try HTTPConnection(port: port, receiveBuffer: 4096)
        try stalled.write(
            "GET", session.route("events?include=session"),
            headers: [("Accept", "text/event-stream"), ("Authorization", "Bearer \(session.token)")])
        let padding = String(repeating: "x", count: 60_000)
        for index in 0..<40 {
            let answer = try client.post(
                session.route("set-state"), json: ["state": "s\(index)", "params": ["padding": padding]], token: session.token)
            guard answer.status == 200 else { throw ClientError.unexpectedStatus(answer.status, body: answer.text) }
        }
        return stalled
    }

    /// Makes `session` about 3.6 MB (four screens of 900 KB), then asks for it on a connection
    /// that never reads the answer: an ordinary request in flight, not a stream. Returns once
    /// `server` has logged the read, so answered.
    static func largeRead(port: UInt16, of session: CreatedSession, changedBy client: HTTPConnection, server: ServerProcess)
        throws -> HTTPConnection
    {
        let padding = String(repeating: "x", count: 900_000)
        for index in 0..<4 {
            let answer = try client.post(
                session.route("push"), json: ["screen": "page\(index)", "params": ["padding": padding]], token: session.token,
                headers: [("Prefer", "return=minimal")])
            guard answer.status == 200 else { throw ClientError.unexpectedStatus(answer.status, body: answer.text) }
        }
        let stalled = try HTTPConnection(port: port, receiveBuffer: 4096)
        try stalled.write("GET", session.route(), headers: [("Authorization", "Bearer \(session.token)")])
        let answered = Date().addingTimeInterval(ServerProcess.patience)
        while !server.output.contains(#""method":"GET""#), Date() < answered { Thread.sleep(forTimeInterval: 0.02) }
        return stalled
    }

    /// Waits until the server has logged that its stop began, and a moment more.
    static func waitForStopToBegin(_ server: ServerProcess) {
        let waiting = Date().addingTimeInterval(ServerProcess.patience)
        while !server.output.contains(#""event":"stopping""#), Date() < waiting { Thread.sleep(forTimeInterval: 0.02) }
    }
}
