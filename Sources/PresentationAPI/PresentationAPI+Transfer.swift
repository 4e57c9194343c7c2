import JSON
import MicroHTTP
import Presentation

/// Export and import of one session as a JSON document, for support tools that copy a user's state.
extension PresentationAPI {
    /// `GET /v1/sessions/{id}/export`: the session's document; needs the session's token.
    func exportSession(_ id: String, _ request: HTTPRequest) throws -> HTTPResponse {
        let session = try authorizedSession(id, request)
        var response = HTTPResponse.json(SessionDocument.write(session), revision: session.revision)
        response.headers.set("Content-Disposition", "attachment; filename=\"session-\(session.id.rawValue).json\"")
        return response
    }

    /// `POST /v1/sessions/import`: a new session, with its own id and token, holding what the
    /// document holds; open to anyone who may create a session, under the same limits.
    func importSession(_ request: HTTPRequest) throws -> HTTPResponse {
        var fields = try bodyFields(of: request, allowEmpty: false)
        let (snapshot, timeToLive) = try SessionDocument.read(&fields)
        let created = try store.importSession(snapshot, timeToLive: timeToLive, now: now())
        var writer = JSONWriter()
        writer.write(
            session: created.session, token: created.token,
            timeToLive: store.limits.timeToLive(requested: timeToLive))
        var response = HTTPResponse.json(writer.bytes, status: .created, revision: created.session.revision)
        response.headers.set("Location", "/v1/sessions/\(created.session.id.rawValue)")
        return response
    }
}
