import Testing

extension HTTPConnection {
    /// A new session whose kept history is as large as `--max-session-bytes` (4 MiB by
    /// default) allows: twenty states of 240 KB, of which the history keeps sixteen. Returns
    /// the session, the revision its kept events start after, and the read of them all.
    func sessionWithLargeHistory() throws -> (session: CreatedSession, oldest: Int, kept: ClientResponse) {
        let session = try createSession()
        let blob = String(repeating: "x", count: 240_000)
        for index in 0..<20 {
            let answer = try post(
                "set-state", to: session, json: ["state": "s\(index)", "params": ["blob": blob]],
                headers: [("Prefer", "return=minimal")])
            #expect(answer.status == 200)
        }
        let expired = try get(session.route("events?after=0"), token: session.token)
        let oldest = try #require(try expired.json()["oldest"] as? Int)
        let kept = try get(session.route("events?after=\(oldest)"), token: session.token)
        #expect(kept.status == 200)
        #expect(kept.body.count > 3_500_000)
        return (session, oldest, kept)
    }
}
