/// A message libmicrohttpd wrote about itself: a socket error, a refused TLS handshake, or a
/// request it answered on its own before any handler saw it.
public struct LibraryMessage: Sendable, Equatable {
    /// The message as libmicrohttpd formatted it, without surrounding whitespace.
    public let text: String
    /// The status libmicrohttpd answered with, when the message reports a request it refused
    /// itself: a request line or header block too large for the connection's memory (414,
    /// 431), a `Content-Length` past 64 bits (413), an HTTP version it does not speak (505), a
    /// malformed header or chunk (400). Such a request never reaches the handler, so this
    /// message is the only trace it leaves.
    public let refusal: HTTPStatus?
    /// Whether the message reports a TLS handshake GnuTLS refused: plain HTTP sent to the HTTPS
    /// port, a client that refused the certificate (an expired one), a handshake cut short.
    /// libmicrohttpd 0.9.75 says the same for each, and nothing else counts them.
    public let isFailedHandshake: Bool

    public init(_ text: String) {
        self.text = text
        refusal = Self.refusalStatus(in: text)
        isFailedHandshake = text == Self.failedHandshake
    }

    /// libmicrohttpd's text for any handshake that failed (`MHD_run_tls_handshake_`, 0.9.7x).
    private static let failedHandshake = "Error: received handshake message out of context."

    /// libmicrohttpd (0.9.7x) reports each of its own error answers, from
    /// `transmit_error_response`, as "Error processing request (HTTP response code is 431 (...)).".
    /// The prefix is matched, never the description after the code, which changed between
    /// releases (quotes, wording).
    private static let refusalPrefix = Array("Error processing request (HTTP response code is ".utf8)

    private static func refusalStatus(in text: String) -> HTTPStatus? {
        let utf8 = Array(text.utf8)
        guard utf8.starts(with: refusalPrefix) else { return nil }
        let digits = utf8[refusalPrefix.count...].prefix(while: { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        // Exactly three digits, a status libmicrohttpd can send: anything else is another message.
        guard digits.count == 3 else { return nil }
        let code = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard (400...599).contains(code) else { return nil }
        return HTTPStatus(rawValue: code)
    }
}
