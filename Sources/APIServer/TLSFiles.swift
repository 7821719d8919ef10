import HummingbirdTLS
import NIOSSL

/// The certificate chain and private key `feedctl serve --tls-cert --tls-key` serves HTTPS
/// with (PEM files, as Let's Encrypt's `fullchain.pem` and `privkey.pem`). Read once, at start:
/// a file that cannot be read or a key that does not match is a start error, not a failed
/// handshake later.
public struct TLSFiles: Sendable, Equatable {
    public var certificate: String
    public var key: String

    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }

    /// The server's TLS settings: TLS 1.2 and later, NIOSSL's default ciphers.
    func configuration() throws(ServerStartError) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw ServerStartError("--tls-cert \(certificate): not a readable PEM certificate (\(error))")
        }
        guard !chain.isEmpty else { throw ServerStartError("--tls-cert \(certificate): no certificate in the file") }
        let privateKey: NIOSSLPrivateKey
        do {
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch {
            throw ServerStartError("--tls-key \(key): not a readable PEM private key (\(error))")
        }
        var settings = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                                privateKey: .privateKey(privateKey))
        settings.minimumTLSVersion = .tlsv12
        // Building the context checks that the key matches the certificate.
        do {
            _ = try NIOSSLContext(configuration: settings)
        } catch {
            throw ServerStartError("--tls-key \(key) does not go with --tls-cert \(certificate) (\(error))")
        }
        return settings
    }
}
