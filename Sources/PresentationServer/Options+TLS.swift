#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import MicroHTTP

/// The certificate and key files for `--tls-cert` and `--tls-key`, read and checked before
/// anything starts, so that a file that cannot serve is refused naming its flag.
extension Options {
    /// Both files or neither: half a TLS setup is a mistake to report, not to ignore.
    func tlsCredentials() throws(OptionsError) -> TLSCredentials? {
        switch (tlsCertificatePath, tlsKeyPath) {
        case (nil, nil): return nil
        case (let certificate?, let key?):
            let certificatePEM = try pem(certificate, "--tls-cert")
            let keyPEM = try pem(key, "--tls-key")
            // The two files mixed up (certbot's `fullchain.pem` as the key): GnuTLS said only
            // "The requested data were not available", and the start failed naming neither flag.
            // One file may hold both, as long as it holds the half its flag asks for.
            guard Self.holdsCertificate(certificatePEM) else {
                throw refusal("--tls-cert", certificate, "a PEM certificate (this file holds none)")
            }
            guard Self.holdsPrivateKey(keyPEM) else {
                throw refusal("--tls-key", key, "a PEM private key (this file holds none)")
            }
            // There is no passphrase to give: GnuTLS's "Decryption has failed" came out as a key
            // not matching its certificate, a start failure (exit 1) rather than a value refused.
            if Self.isEncrypted(keyPEM) {
                throw refusal("--tls-key", key, "a private key without a passphrase (this one is encrypted)")
            }
            return TLSCredentials(certificatePEM: certificatePEM, privateKeyPEM: keyPEM)
        case (nil, _): throw .missingValue("\(name("--tls-cert", like: "--tls-key")) (\(name("--tls-key")) needs it)")
        case (_, nil): throw .missingValue("\(name("--tls-key", like: "--tls-cert")) (\(name("--tls-cert")) needs it)")
        }
    }

    private func pem(_ path: String, _ flag: String) throws(OptionsError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw refusal(flag, path, "a readable file") }
        let text = String(decoding: data, as: UTF8.self)
        guard text.contains("-----BEGIN ") else { throw refusal(flag, path, "a PEM file") }
        return text
    }

    /// A PEM block of a certificate: `CERTIFICATE`, or the older `X509 CERTIFICATE` GnuTLS also
    /// reads (and OpenSSL's `TRUSTED CERTIFICATE`, left to GnuTLS to judge, as before). Matched
    /// within a line, never across one: a file saved with CRLF line ends is read the same.
    private static func holdsCertificate(_ pem: String) -> Bool {
        pem.contains(" CERTIFICATE-----")
    }

    /// A PEM block of a private key in any form: PKCS #8 (`PRIVATE KEY`, and `ENCRYPTED PRIVATE
    /// KEY`, refused after this for its passphrase) or a type's own (`RSA PRIVATE KEY`, `EC PRIVATE
    /// KEY`). Base64 holds neither spaces nor dashes, so no certificate's body matches.
    private static func holdsPrivateKey(_ pem: String) -> Bool {
        pem.contains(" PRIVATE KEY-----")
    }

    /// A key encrypted with a passphrase: PKCS #8's `ENCRYPTED PRIVATE KEY`, or OpenSSL's older
    /// form, a `Proc-Type: 4,ENCRYPTED` header in the key's block.
    private static func isEncrypted(_ pem: String) -> Bool {
        pem.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || pem.contains("Proc-Type: 4,ENCRYPTED")
    }
}
