/// A session just created, with the one copy of its token that will ever exist outside the client.
public struct NewSession: Sendable {
    public let session: Session
    public let token: SessionToken

    public init(session: Session, token: SessionToken) {
        self.session = session
        self.token = token
    }
}
