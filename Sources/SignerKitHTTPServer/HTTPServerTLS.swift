import SecureMemory

/// What an ``HTTPServer`` serves HTTPS with: a PEM certificate chain and its PEM private key, the key in
/// libgcrypt secure memory (wiped when the server stops). GnuTLS parses both when the server starts.
package struct HTTPServerTLS: Sendable {
    /// The certificate chain, PEM, NUL-terminated.
    let certificate: [UInt8]
    /// The private key, PEM, NUL-terminated, in secure memory.
    let key: SecureBytes

    /// An identity from the PEM texts (the key's bytes are copied into secure memory; the caller wipes its own).
    package init(certificatePEM: [UInt8], keyPEM: UnsafeRawBufferPointer) {
        certificate = certificatePEM + [0]
        key = SecureBytes(count: keyPEM.count + 1) { (buffer: UnsafeMutableRawBufferPointer) in
            buffer.copyMemory(from: keyPEM)
        }
    }

    /// Calls `body` with NUL-terminated key and certificate pointers (both `nil` without TLS).
    static func withPEM<T>(
        _ tls: HTTPServerTLS?, _ body: (UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> T
    ) -> T {
        guard let tls else { return body(nil, nil) }
        return tls.key.withUnsafeBytes { key in
            tls.certificate.withUnsafeBytes { certificate in
                body(
                    key.baseAddress?.assumingMemoryBound(to: CChar.self),
                    certificate.baseAddress?.assumingMemoryBound(to: CChar.self))
            }
        }
    }
}
