import Secp256k1
import SignerKitSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the user PIN for `C_Login` comes from.
///
/// There is deliberately no way to pass a PIN as a plain `String` or on a command line: command
/// lines are visible to every user through `/proc`, and strings cannot be wiped. The PIN is read
/// into a `SecureBytes` buffer (libgcrypt secure memory), handed to `C_Login` and wiped right
/// after the attempt, whatever its outcome.
public enum PINSource: Sendable, CustomStringConvertible {
    /// The environment variable with this name (default ``defaultEnvironmentVariable``). The
    /// variable itself is left in place; the process environment cannot be wiped reliably.
    case environment(name: String = PINSource.defaultEnvironmentVariable)
    /// The first line of this file (a trailing newline, and CR, are dropped). Keep it mode 0600.
    case file(path: String)
    /// The first line of the file whose path the environment variable with this name holds (default
    /// ``defaultFileEnvironmentVariable``, what `scripts/softhsm-token.sh` exports): the PIN stays in a file,
    /// and only its path travels through the environment.
    case environmentFile(name: String = PINSource.defaultFileEnvironmentVariable)
    /// A prompt on the controlling terminal (`/dev/tty`) with echo turned off.
    case terminalPrompt(prompt: String = "PKCS#11 user PIN: ")
    /// A PIN already in secure memory. It is consumed: the buffer is wiped after the login
    /// attempt.
    case secure(SecureBytes)
    /// The token's protected authentication path (a PIN pad on the device): `C_Login` is called
    /// without a PIN.
    case protectedAuthenticationPath

    /// `SIGNERKIT_PIN`.
    public static let defaultEnvironmentVariable = "SIGNERKIT_PIN"

    /// `SIGNERKIT_PIN_FILE`.
    public static let defaultFileEnvironmentVariable = "SIGNERKIT_PIN_FILE"

    /// The longest PIN accepted from a file, variable or terminal.
    public static let maximumLength = 256

    /// Names the source, never the PIN.
    public var description: String {
        switch self {
        case .environment(let name): "environment variable \(name)"
        case .file(let path): "PIN file \(path)"
        case .environmentFile(let name): "PIN file named by environment variable \(name)"
        case .terminalPrompt: "terminal prompt"
        case .secure: "secure buffer"
        case .protectedAuthenticationPath: "protected authentication path"
        }
    }

    /// Reads the PIN into secure memory; `nil` for ``protectedAuthenticationPath``.
    func read() throws(PKCS11Error) -> SecureBytes? {
        switch self {
        case .environment(let name):
            guard let value = getenv(name) else { throw .pinUnavailable("environment variable \(name) is not set") }
            let length = strlen(value)
            guard length > 0 else { throw .pinUnavailable("environment variable \(name) is empty") }
            guard length <= Self.maximumLength else {
                throw .pinUnavailable("environment variable \(name) is too long")
            }
            return SecureBytes(count: length) { (buffer: UnsafeMutableRawBufferPointer) in
                buffer.copyMemory(from: UnsafeRawBufferPointer(start: value, count: length))
            }
        case .file(let path):
            return try Self.readFile(path)
        case .environmentFile(let name):
            guard let path = getenv(name).map({ String(cString: $0) }), !path.isEmpty else {
                throw .pinUnavailable("environment variable \(name) (the PIN file's path) is not set")
            }
            return try Self.readFile(path)
        case .terminalPrompt(let prompt):
            return try Self.readTerminal(prompt: prompt)
        case .secure(let bytes):
            guard bytes.count > 0 else { throw .pinUnavailable("the secure PIN buffer is empty") }
            return bytes
        case .protectedAuthenticationPath:
            return nil
        }
    }

    /// The first line of `path`, read straight into secure memory.
    private static func readFile(_ path: String) throws(PKCS11Error) -> SecureBytes {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw .pinUnavailable("cannot open PIN file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var failure: PKCS11Error?
        let scratch = SecureBytes(count: maximumLength + 1) { (buffer: UnsafeMutableRawBufferPointer) in
            if case .failure(let error) = POSIXIO.fill(buffer, from: fd) {
                failure = .pinUnavailable("cannot read PIN file \(path): \(error)")
            }
        }
        defer { scratch.wipe() }
        if let failure { throw failure }
        return try firstLine(of: scratch, source: "PIN file \(path)")
    }

    /// Prompts on `/dev/tty` with echo off and reads one line into secure memory.
    private static func readTerminal(prompt: String) throws(PKCS11Error) -> SecureBytes {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw .pinUnavailable("no terminal for the PIN prompt") }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { throw .pinUnavailable("cannot read the terminal settings") }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO | ECHONL)
        silent.c_lflag |= tcflag_t(ICANON)
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        guard tcsetattr(fd, TCSAFLUSH, &silent) == 0 else { throw .pinUnavailable("cannot turn off terminal echo") }
        var interrupted = false
        let scratch = SecureBytes(count: maximumLength + 1) { (buffer: UnsafeMutableRawBufferPointer) in
            var filled = 0
            var byte: UInt8 = 0
            while true {
                let n = withUnsafeMutableBytes(of: &byte) { POSIXIO.readOnce(fd, into: $0) }
                guard case .success(1) = n else {
                    interrupted = filled == 0
                    break
                }
                if byte == 0x0A { break }
                if filled < buffer.count { buffer[filled] = byte }
                filled += 1
            }
            byte = 0
        }
        defer { scratch.wipe() }
        _ = tcsetattr(fd, TCSAFLUSH, &saved)
        _ = write(fd, "\n", 1)
        if interrupted { throw .pinUnavailable("no PIN entered at the terminal prompt") }
        return try firstLine(of: scratch, source: "terminal prompt")
    }

    /// Copies the bytes before the first LF (dropping a CR before it, and stopping at a NUL) of
    /// a zero-filled scratch buffer into an exactly sized secure buffer.
    private static func firstLine(of scratch: SecureBytes, source: String) throws(PKCS11Error) -> SecureBytes {
        let length: Int = scratch.withUnsafeBytes { bytes in
            var end = bytes.firstIndex(where: { $0 == 0x0A || $0 == 0 }) ?? bytes.count
            if end > 0, bytes[end - 1] == 0x0D { end -= 1 }
            return end
        }
        guard length > 0 else { throw .pinUnavailable("\(source) holds no PIN") }
        guard length <= maximumLength else {
            throw .pinUnavailable("\(source): PIN longer than \(maximumLength) bytes")
        }
        return SecureBytes(count: length) { (buffer: UnsafeMutableRawBufferPointer) in
            scratch.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
        }
    }
}
