import Foundation

/// Polls `condition` until it holds, for up to `seconds` (`ServerProcess.patience` unless
/// told): for what the server makes on a thread of its own, which no answer the test holds
/// orders before its read (a log line that reaches the test through a pipe, a thread that
/// names itself once started). True as soon as it holds; false, after one last look, when
/// the time ran out.
func eventually(within seconds: Double = ServerProcess.patience, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return try condition()
}

extension ServerProcess {
    /// The first log line of `event`, waited for (see `eventually`): nil when none came in time.
    func waitForLine(_ event: String) -> [String: Any]? {
        var found: [String: Any]?
        _ = eventually {
            found = logLines().first { $0["event"] as? String == event }
            return found != nil
        }
        return found
    }
}
