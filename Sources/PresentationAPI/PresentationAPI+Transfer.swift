import JSON
import MicroHTTP
import Presentation

/// Export and import of one session as a JSON document, for support tools that copy a user's state.
extension PresentationAPI {
    /// `GET /v1/sessions/{id}/export`: the session's document; needs the session's token.
    func exportSession(_ id: Substring, _ request: HTTPRequest) throws -> HTTPResponse {
        let session = try authorizedSession(id, request)
        var response = HTTPResponse.json(exports.document(for: session, write: SessionDocument.write), revision: session.revision)
        response.headers.set("Content-Disposition", "attachment; filename=\"session-\(session.id.rawValue).json\"")
        return response
    }

    /// `POST /v1/sessions/import`: a new session, with its own id and token, holding what the
    /// document holds; open to anyone who may create a session, under the same limits.
    func importSession(_ request: HTTPRequest) throws -> HTTPReply {
        // The document holds the session's params and results deeper than the bodies that
        // sent them: read with the body limit alone, an export of a valid session was refused.
        var fields = try bodyFields(of: request, allowEmpty: false, parser: documentParser)
        let store = store
        let (snapshot, timeToLive) = try SessionDocument.read(
            &fields, maxPresentationDepth: store.limits.maxPresentationDepth)
        // Checked before answerCreation counts it against the client's creation rate: a
        // document that breaks an invariant is a refused body, which costs nothing.
        let imported = try ImportedSession(checking: snapshot, limits: store.limits)
        return answerCreation(key: nil, fingerprint: [], timeToLive: timeToLive, from: request) { done in
            store.importSession(imported, timeToLive: timeToLive, now: self.now(), completion: done)
        }
    }
}
