/// A certificate chain and its private key, in PEM, for serving HTTPS straight from libmicrohttpd.
public struct TLSCredentials: Sendable {
    public var certificatePEM: String
    public var privateKeyPEM: String

    public init(certificatePEM: String, privateKeyPEM: String) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
    }
}
