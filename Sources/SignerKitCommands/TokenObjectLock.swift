import EthereumPrimitives
import Foundation
import RedirectSigner
import RedirectSignerTransports

/// Keeps one user's `signerkit pkcs11` processes on one token from reading it while another writes:
/// `keygen` and `import` hold it exclusively, `list` and `address` shared.
///
/// The token-side protocol (create, look again, destroy one's own duplicate: see
/// `PKCS11Token.createUnique`) needs each process to see the others' objects at once. SoftHSM2's
/// file store does not promise that: a process may look at a cached listing while another creates
/// the same label, and then both keep their key. Worse, SoftHSM2 2.6's file store can lose a new
/// key's attributes (it stays, without label or id) when another process reads the token while the key
/// is being written. So the processes also take an advisory `flock` on
/// `<per-user runtime directory>/pkcs11-<hash of module and token label>.lock` (`$XDG_RUNTIME_DIR/signerkit`
/// or `<tmp>/signerkit-<uid>`, mode 0700, owned by the user) around the creation. The wait is
/// bounded (``timeout``); when the directory cannot be used the command goes ahead with the
/// token-side protocol alone. The CLI opens the token inside the lock, so each process reads the
/// token after the previous writer finished writing it. Processes of other tools are not covered.
enum TokenObjectLock {
    /// How a process holds the lock.
    enum Mode {
        /// Alone: creating or destroying objects.
        case exclusive
        /// With other readers: finding and reading objects.
        case shared
    }

    /// Longest wait for another process's creation to finish.
    static let timeout: Duration = .seconds(30)

    /// Runs `body` holding the lock for `module` and `token` in `mode`.
    ///
    /// - Throws: what `body` throws; 65 when another process held the lock for ``timeout``.
    static func withLock<R>(
        _ mode: Mode, module: String, token: String, _ body: () async throws(CommandFailure) -> R
    ) async throws(CommandFailure) -> R {
        guard let descriptor = open(module: module, token: token) else { return try await body() }
        defer { close(descriptor) }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let operation = (mode == .exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB
        while flock(descriptor, operation) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { return try await body() }
            guard ContinuousClock.now < deadline else {
                throw .invalidInput(
                    "another signerkit process kept writing to this token for \(timeout); try again")
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        defer { flock(descriptor, LOCK_UN) }
        return try await body()
    }

    /// The open lock file, or `nil` when the per-user directory is missing and cannot be made
    /// private.
    private static func open(module: String, token: String) -> Int32? {
        let directory = (DeepLinkTransport.defaultSocketPath() as NSString).deletingLastPathComponent
        _ = mkdir(directory, 0o700)
        var status = stat()
        guard lstat(directory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid(),
            status.st_mode & 0o077 == 0
        else { return nil }
        let name = Keccak256.hash(utf8: "\(module)\n\(token)").hex.dropFirst(2).prefix(16)
        let descriptor = Foundation.open(
            "\(directory)/pkcs11-\(name).lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        return descriptor >= 0 ? descriptor : nil
    }
}
