import EthereumPrimitives
import PKCS11Signer
import Secp256k1

/// `signerkit pkcs11 keygen|import|list|address`: secp256k1 keys on a PKCS#11 token.
enum PKCS11Commands {
    /// The `pkcs11` group.
    static let command = Command.group(
        "pkcs11", summary: "Generate, import and list secp256k1 keys on a PKCS#11 token (HSM, smart card, SoftHSM2).",
        details: """
            Every command loads --module PATH (default $SIGNERKIT_PKCS11_MODULE), finds the token by
            --token-label and logs in once with the PIN from --pin-file F (the whole file without one trailing
            newline; a regular file of mode 0600 or stricter, not a symlink) or else $SIGNERKIT_PIN; never from
            arguments. A wrong PIN is not retried: it exits 65 naming CKR_PIN_INCORRECT (and says so when the PIN
            begins or ends with whitespace). Errors of a token that another process is writing (SoftHSM2's file
            store) are retried a few times within about two seconds. keygen and import refuse a label or id that is
            already on the token, also when another process creates it at the same moment; list and address wait while
            another signerkit process creates a key on the token (SoftHSM2 2.6 can lose a key read while written).
            To sign with a token key, give any signing command --pkcs11-module PATH --token-label L
            --key-label K (or --key-id HEX) and --pin-file F instead of --key-file.
            """,
        subcommands: [keygen, importKey, list, address])

    /// The flags every `pkcs11` command takes.
    static let tokenFlags: [FlagSpec] = [
        PKCS11Options.module, PKCS11Options.tokenLabel, PKCS11Options.pinFile, SecretFile.allowInsecureFlag,
    ]

    /// `pkcs11 keygen`.
    static let keygen = Command.leaf(
        "keygen", summary: "Generate a secp256k1 key pair on the token; print its address (EIP-55).",
        details: """
            The private key is a sensitive, non-extractable token object that may only sign. --key-label is
            required; the id (CKA_ID) is --key-id, else 16 random bytes.
            """,
        synopsis: "--module PATH --token-label L --key-label K [--key-id HEX] [--pin-file F]",
        flags: tokenFlags + [PKCS11Options.keyLabel, PKCS11Options.keyID],
        run: runKeygen)

    /// `pkcs11 import`.
    static let importKey = Command.leaf(
        "import", summary: "Store the private key of --key-file on the token; print its address (EIP-55).",
        details: """
            The key file holds 0x + 64 hex digits. The token object is sensitive and not extractable, with a
            matching public-key object. Importing exposes the key to this host: prefer keygen.
            """,
        synopsis: "--module PATH --token-label L --key-label K [--key-id HEX] --key-file F [--pin-file F]",
        flags: tokenFlags + [PKCS11Options.keyLabel, PKCS11Options.keyID, SigningKeyOptions.keyFile],
        run: runImport)

    /// `pkcs11 list`.
    static let list = Command.leaf(
        "list", summary: "Print one line per private key on the token: label, id, address.",
        details: """
            Output: one line per private key, three fields separated by one tab: the label (CKA_LABEL,
            control characters escaped), the id (CKA_ID as 0x-hex) and the EIP-55 address. An empty label or
            id prints as -, and so does the address of a key that is not secp256k1 or whose public key cannot
            be read. Nothing is printed for an empty token.
            """,
        synopsis: "--module PATH --token-label L [--pin-file F]",
        flags: tokenFlags,
        run: runList)

    /// `pkcs11 address`.
    static let address = Command.leaf(
        "address", summary: "Print the address (EIP-55) of a secp256k1 key on the token.",
        synopsis: "--module PATH --token-label L (--key-label K | --key-id HEX) [--pin-file F]",
        flags: tokenFlags + [PKCS11Options.keyLabel, PKCS11Options.keyID],
        run: runAddress)

    /// Generates a key pair and prints its address.
    static func runKeygen(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        let label = try options.required(PKCS11Options.keyLabel.name, "(the new key's label)")
        let id = try PKCS11Options.keyID(options)
        let session = try PKCS11Options.session(options, moduleFlag: PKCS11Options.module.name, io: context.io)
        // The token is opened inside the lock: the module then reads the token after the previous
        // creator finished writing it (SoftHSM2 may keep showing a process an older object list).
        let info = try await TokenObjectLock.withLock(.exclusive, module: session.modulePath, token: session.tokenLabel)
        {
            () throws(CommandFailure) in
            let token = try await session.open()
            return try await PKCS11Options.performRetrying { () throws(PKCS11Error) in
                try token.generateKeyPair(label: label, id: id)
            }
        }
        context.printLine(try PKCS11Options.address(of: info))
        return .success
    }

    /// Imports a key file and prints its address.
    static func runImport(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        let label = try options.required(PKCS11Options.keyLabel.name, "(the label to store the key under)")
        let id = try PKCS11Options.keyID(options)
        let keyPath = try options.required(SigningKeyOptions.keyFile.name, "(the 0x-hex private key to import)")
        let session = try PKCS11Options.session(options, moduleFlag: PKCS11Options.module.name, io: context.io)
        let key = try KeyFile.read(keyPath, allowInsecure: SecretFile.allowsInsecure(options))
        // The token is opened inside the lock: the module then reads the token after the previous
        // creator finished writing it (SoftHSM2 may keep showing a process an older object list).
        let info = try await TokenObjectLock.withLock(.exclusive, module: session.modulePath, token: session.tokenLabel)
        {
            () throws(CommandFailure) in
            let token = try await session.open()
            return try await PKCS11Options.performRetrying { () throws(PKCS11Error) in
                try token.importPrivateKey(key, label: label, id: id)
            }
        }
        context.printLine(try PKCS11Options.address(of: info))
        return .success
    }

    /// Lists the token's private keys.
    static func runList(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let session = try PKCS11Options.session(context.options, moduleFlag: PKCS11Options.module.name, io: context.io)
        let keys = try await TokenObjectLock.withLock(.shared, module: session.modulePath, token: session.tokenLabel) {
            () throws(CommandFailure) in
            let token = try await session.open()
            return try await PKCS11Options.performRetrying { () throws(PKCS11Error) in try token.listKeys() }
        }
        var output = ""
        for key in keys {
            let label = key.label.isEmpty ? "-" : TextSafety.singleLine(key.label)
            let id = key.id.isEmpty ? "-" : key.idHex
            let address = key.isSecp256k1 ? key.address?.checksummed ?? "-" : "-"
            output += "\(label)\t\(id)\t\(address)\n"
        }
        context.io.writeStandardOutput(output)
        return .success
    }

    /// Prints the address of the key named by `--key-label` or `--key-id`.
    static func runAddress(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        let locator = try PKCS11Options.locator(options)
        let session = try PKCS11Options.session(options, moduleFlag: PKCS11Options.module.name, io: context.io)
        let info = try await TokenObjectLock.withLock(.shared, module: session.modulePath, token: session.tokenLabel) {
            () throws(CommandFailure) in
            let token = try await session.open()
            return try await PKCS11Options.performRetrying { () throws(PKCS11Error) in try token.key(locator) }
        }
        context.printLine(try PKCS11Options.address(of: info))
        return .success
    }
}

/// The PKCS#11 flags and the steps shared by the `pkcs11` commands and the PKCS#11 key source
/// of the signing commands (``loadSigningKey(_:io:)``).
enum PKCS11Options {
    /// `--module PATH` (the `pkcs11` commands; signing commands call it `--pkcs11-module`).
    static let module = FlagSpec.option(
        "--module", value: "PATH", help: "the PKCS#11 module (.so) (default $SIGNERKIT_PKCS11_MODULE)")
    /// `--token-label L`.
    static let tokenLabel = FlagSpec.option("--token-label", value: "L", help: "label of the PKCS#11 token")
    /// `--key-label K`.
    static let keyLabel = FlagSpec.option("--key-label", value: "K", help: "the token key's label (CKA_LABEL)")
    /// `--key-id HEX`.
    static let keyID = FlagSpec.option(
        "--key-id", value: "HEX", help: "the token key's id (CKA_ID) as hex, 0x optional")
    /// `--pin-file FILE`.
    static let pinFile = FlagSpec.option(
        "--pin-file", value: "FILE",
        help: "file holding the token's user PIN (one trailing newline dropped; else $SIGNERKIT_PIN)")

    /// The PIN variable read when `--pin-file` is absent.
    static let pinVariable = PINSource.defaultEnvironmentVariable
    /// The module variable read when no module flag is given.
    static let moduleVariable = "SIGNERKIT_PKCS11_MODULE"

    /// Everything needed to open and log in to a token, checked before anything is loaded.
    struct Session {
        /// The module path.
        let modulePath: String
        /// The token label.
        let tokenLabel: String
        /// The PIN, already read.
        let pin: PIN

        /// Loads the module, finds the token and logs in (one `C_Login` per attempt; a wrong PIN is
        /// never retried, see ``PKCS11Options/retryingTransientErrors(_:)``).
        ///
        /// - Throws: 65 naming the failing call and return code (`PKCS#11 C_Login: CKR_PIN_INCORRECT`)
        ///   or the problem (`no initialised PKCS#11 token with label "x"`).
        func open() async throws(CommandFailure) -> PKCS11Token {
            do {
                return try await PKCS11Options.retryingTransientErrors(
                    { () throws(PKCS11Error) in
                        let token = try PKCS11Module.load(path: modulePath).token(.label(tokenLabel))
                        try token.login(pin: pin.source())
                        return token
                    },
                    beforeRetry: {
                        guard PKCS11Options.reinitializesModule.load(ordering: .relaxed) else { return }
                        try? PKCS11Module.load(path: modulePath).reinitialize()
                    })
            } catch {
                guard error.error.returnCode == .pinIncorrect, pin.hasSurroundingWhitespace else {
                    throw PKCS11Options.failure(error)
                }
                var message = PKCS11Options.failure(error).message
                message += " (the PIN from \(pin.origin) begins or ends with whitespace, which is part of the PIN:"
                message += " only one trailing newline is dropped)"
                throw .invalidInput(message)
            }
        }
    }

    /// A user PIN read into secure memory once; each login attempt gets a copy (which the login wipes).
    struct PIN {
        /// The PIN bytes.
        let bytes: SecureBytes
        /// `--pin-file <path>` or `$SIGNERKIT_PIN`, for messages.
        let origin: String
        /// Whether the PIN begins or ends with whitespace.
        let hasSurroundingWhitespace: Bool

        /// A fresh secure copy for one `C_Login`.
        func source() -> PINSource { .secure(SecureBytes(copying: bytes)) }
    }

    /// Reads and checks the module, token and PIN options (without loading anything).
    ///
    /// - Throws: 65 for a missing module, token label or PIN source.
    static func session(_ options: ParsedOptions, moduleFlag: String, io: any CommandIO) throws(CommandFailure)
        -> Session
    {
        let path = try modulePath(options, flag: moduleFlag, io: io)
        let label = try options.required(tokenLabel.name, "(the label of the PKCS#11 token)")
        guard !label.isEmpty else { throw .invalidInput("\(tokenLabel.name): the token label is empty") }
        return Session(modulePath: path, tokenLabel: label, pin: try pin(options, io: io))
    }

    /// The module path from `flag`, else `$SIGNERKIT_PKCS11_MODULE`.
    static func modulePath(_ options: ParsedOptions, flag: String, io: any CommandIO) throws(CommandFailure) -> String {
        if let path = options.value(flag) {
            guard !path.isEmpty else { throw .invalidInput("\(flag): the module path is empty") }
            return path
        }
        if let path = io.environment[moduleVariable], !path.isEmpty { return path }
        throw .usage("missing \(flag) (the PKCS#11 module; or set \(moduleVariable))", command: options.commandPath)
    }

    /// The PIN: the whole of `--pin-file` without one trailing newline (a regular file of mode 0600
    /// or stricter, see ``SecretFile``), else `$SIGNERKIT_PIN` from the command's environment.
    static func pin(_ options: ParsedOptions, io: any CommandIO) throws(CommandFailure) -> PIN {
        if let path = options.value(pinFile.name) {
            return try pin(file: path, named: pinFile.name, allowInsecure: SecretFile.allowsInsecure(options))
        }
        if let value = io.environment[pinVariable], !value.isEmpty {
            guard value.utf8.count <= PINSource.maximumLength else {
                throw .invalidInput("$\(pinVariable): longer than \(PINSource.maximumLength) bytes")
            }
            var bytes = Array(value.utf8)
            return PIN(
                bytes: SecureBytes(wiping: &bytes), origin: "$\(pinVariable)",
                hasSurroundingWhitespace: SecretFile.hasSurroundingWhitespace(value))
        }
        throw .usage(
            "missing \(pinFile.name) (a file holding the token's user PIN; or set \(pinVariable))",
            command: options.commandPath)
    }

    /// The PIN in the file at `path` (see ``SecretFile``); `name` is how messages call its source (`--pin-file`).
    static func pin(file path: String, named name: String, allowInsecure: Bool) throws(CommandFailure) -> PIN {
        let (secret, whitespace) = try SecretFile.readLine(
            path, what: "PIN", maximumSize: PINSource.maximumLength, allowInsecure: allowInsecure)
        return PIN(
            bytes: secret, origin: "\(name) \(TextSafety.displayArgument(path))", hasSurroundingWhitespace: whitespace)
    }

    /// `--key-id` as bytes, or `nil` when absent.
    ///
    /// - Throws: 65 `--key-id: …` for empty or malformed hex.
    static func keyID(_ options: ParsedOptions) throws(CommandFailure) -> [UInt8]? {
        guard let text = options.value(keyID.name) else { return nil }
        let digits = text.hasPrefix("0x") || text.hasPrefix("0X") ? String(text.dropFirst(2)) : text
        let bytes: [UInt8]
        do { bytes = try Hex.decode("0x" + digits) } catch {
            throw .invalidInput("\(keyID.name): invalid hex: \(error)")
        }
        guard !bytes.isEmpty else { throw .invalidInput("\(keyID.name): the key id is empty") }
        return bytes
    }

    /// The key named by exactly one of `--key-label` and `--key-id`.
    static func locator(_ options: ParsedOptions) throws(CommandFailure) -> PKCS11KeyLocator {
        let (flag, value) = try options.exactlyOne(of: [keyLabel.name, keyID.name])
        if flag == keyLabel.name {
            guard !value.isEmpty else { throw .invalidInput("\(keyLabel.name): the key label is empty") }
            return .label(value)
        }
        guard let id = try keyID(options) else { throw .invalidInput("\(keyID.name): the key id is empty") }
        return .id(id)
    }

    /// A signer for the token key the flags name (`--pkcs11-module` etc.).
    static func signer(_ options: ParsedOptions, io: any CommandIO) async throws(CommandFailure) -> PKCS11KeySigner {
        let locator = try locator(options)
        let session = try session(options, moduleFlag: SigningKeyOptions.pkcs11Module.name, io: io)
        let token = try await session.open()
        return try await performRetrying { () throws(PKCS11Error) in try token.signer(for: locator) }
    }

    /// The address of a key that must be secp256k1.
    static func address(of key: PKCS11KeyInfo) throws(CommandFailure) -> String {
        guard key.isSecp256k1 else {
            throw .invalidInput("key \"\(key.label)\" is not secp256k1 (curve \(key.curve)): secp256k1 is required")
        }
        guard let address = key.address else {
            throw .invalidInput("key \"\(key.label)\" has no readable secp256k1 public key (CKA_EC_POINT)")
        }
        return address.checksummed
    }

    /// Runs PKCS#11 work, turning its error into a one-line failure (exit status 65).
    static func perform<R>(_ body: () throws(PKCS11Error) -> R) throws(CommandFailure) -> R {
        do { return try body() } catch { throw failure(error) }
    }

    /// `PKCS#11 C_Login: CKR_PIN_INCORRECT`, or the error's own description for non-call errors.
    static func failure(_ error: PKCS11Error) -> CommandFailure {
        guard case .call(let function, let code) = error else { return .invalidInput(error.description) }
        var message = "PKCS#11 \(function): \(code.name)"
        if function == "C_Initialize", code == .generalError {
            message += " (for SoftHSM2: is SOFTHSM2_CONF set to a readable configuration whose tokendir exists?)"
        }
        return .invalidInput(message)
    }
}
