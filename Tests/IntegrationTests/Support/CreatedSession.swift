/// A session a test created: its id, its bearer token and the 201 body.
struct CreatedSession: Sendable {
    let id: String
    let token: String
    /// The creation answer as sent, so the value can cross threads.
    let body: [UInt8]

    /// The creation answer, decoded.
    var json: [String: Any] {
        (try? JSONText.object(from: body)) ?? [:]
    }

    /// `/v1/sessions/{id}`, or one of its sub-routes.
    func route(_ suffix: String = "") -> String {
        suffix.isEmpty ? "/v1/sessions/\(id)" : "/v1/sessions/\(id)/\(suffix)"
    }
}
