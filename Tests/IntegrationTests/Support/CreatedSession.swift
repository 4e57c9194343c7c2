/// A session a test created: its id, its bearer token and the 201 body.
struct CreatedSession: Sendable {
    let id: String
    let token: String
    /// The creation answer as sent, so the value can cross threads.
    let body: [UInt8]

    /// The session a creation or an import answered with; nil when the answer names none.
    init?(answer: ClientResponse) {
        guard let json = try? answer.json(), let id = json["id"] as? String, let token = json["token"] as? String else {
            return nil
        }
        self.init(id: id, token: token, body: answer.body)
    }

    init(id: String, token: String, body: [UInt8]) {
        self.id = id
        self.token = token
        self.body = body
    }

    /// The creation answer, decoded.
    var json: [String: Any] {
        (try? JSONText.object(from: body)) ?? [:]
    }

    /// `/v1/sessions/{id}`, or one of its sub-routes.
    func route(_ suffix: String = "") -> String {
        suffix.isEmpty ? "/v1/sessions/\(id)" : "/v1/sessions/\(id)/\(suffix)"
    }
}
