import Secp256k1
import SignerKitHTTPServer
import SignerKitService

/// The HTTPS identity of `signerkit serve` (`tls` in the configuration): the certificate file, and the key
/// file read as a secret (owner-only mode, no symlink) into secure memory.
enum ServeTLS {
    /// Largest certificate chain file read.
    static let maximumCertificateBytes = 256 * 1024
    /// Largest key file read (a PEM RSA-4096 key is about 3.3 KB; secure memory is scarce).
    static let maximumKeyBytes = 16 * 1024

    /// The certificate and key of `files`.
    static func identity(_ files: ServiceTLSFiles, allowInsecure: Bool) throws(CommandFailure) -> HTTPServerTLS {
        let certificate: [UInt8]
        do { certificate = try FileAccess.readAll(files.certificateFile) } catch {
            throw .invalidInput("configuration: tls.certificateFile: \(error.message)")
        }
        guard certificate.count <= maximumCertificateBytes, certificate.starts(with: Array("-----BEGIN".utf8)) else {
            throw .invalidInput("configuration: tls.certificateFile: not a PEM certificate")
        }
        let (contents, length): (SecureBytes, Int)
        do {
            (contents, length) = try SecretFile.read(
                files.keyFile, maximumSize: maximumKeyBytes, allowInsecure: allowInsecure)
        } catch {
            throw .invalidInput("configuration: tls.keyFile: \(error.message)")
        }
        defer { contents.wipe() }
        guard length <= maximumKeyBytes else {
            throw .invalidInput("configuration: tls.keyFile: larger than \(maximumKeyBytes) bytes")
        }
        return try contents.withUnsafeBytes { (bytes) throws(CommandFailure) -> HTTPServerTLS in
            let key = UnsafeRawBufferPointer(rebasing: bytes[0..<length])
            guard key.starts(with: Array("-----BEGIN".utf8)) else {
                throw .invalidInput("configuration: tls.keyFile: not a PEM private key")
            }
            return HTTPServerTLS(certificatePEM: certificate, keyPEM: key)
        }
    }
}
