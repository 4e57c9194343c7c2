/// One answered request, for the access log: what was asked, what was answered, how fast.
public struct HTTPAccessRecord: Sendable {
    public var method: HTTPMethod
    public var path: String
    public var status: HTTPStatus
    /// The handler's label for the route it matched (`HTTPResponse.route`); nil when none did.
    public var route: String?
    /// From the moment the headers arrived to the moment the response was queued.
    public var duration: Duration
    /// Where the connection came from.
    public var clientAddress: ClientAddress?
}
