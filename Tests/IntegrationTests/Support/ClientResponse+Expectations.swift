import Testing

/// Checks shared by every test: what a problem and what a session answer must look like.
extension ClientResponse {
    /// Expects an RFC 9457 problem with this status and code; returns its members.
    @discardableResult
    func expectProblem(_ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation)
        -> [String: Any]
    {
        #expect(self.status == status, "body: \(text)", sourceLocation: sourceLocation)
        #expect(header("Content-Type") == "application/problem+json", sourceLocation: sourceLocation)
        guard let problem = try? json() else {
            Issue.record("the problem is not a JSON object: \(text)", sourceLocation: sourceLocation)
            return [:]
        }
        #expect(problem["code"] as? String == code, "body: \(text)", sourceLocation: sourceLocation)
        #expect(problem["status"] as? Int == status, sourceLocation: sourceLocation)
        #expect(problem["type"] as? String == "urn:presentation-server:problem:\(code)", sourceLocation: sourceLocation)
        #expect(problem["title"] is String, sourceLocation: sourceLocation)
        #expect(problem["detail"] is String, sourceLocation: sourceLocation)
        return problem
    }

    /// Expects a session answer whose `ETag` names its revision; returns the session.
    @discardableResult
    func expectSession(
        status: Int = 200,
        revision: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [String: Any] {
        #expect(self.status == status, "body: \(text)", sourceLocation: sourceLocation)
        #expect(
            header("Content-Type")?.hasPrefix("application/json") == true,
            "Content-Type: \(header("Content-Type") ?? "none")",
            sourceLocation: sourceLocation)
        guard let session = try? json() else {
            Issue.record("the session is not a JSON object: \(text)", sourceLocation: sourceLocation)
            return [:]
        }
        let actual = session["revision"] as? Int
        #expect(actual != nil, "no revision in \(text)", sourceLocation: sourceLocation)
        if let actual {
            #expect(header("ETag") == "\"\(actual)\"", sourceLocation: sourceLocation)
        }
        if let revision {
            #expect(actual == revision, sourceLocation: sourceLocation)
        }
        return session
    }
}
