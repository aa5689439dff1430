import Secp256k1

/// `signerkit key generate|address|mnemonic|derive`: software keys and HD wallets (``HDCommands``).
enum KeyCommands {
    /// The `key` group.
    static let command = Command.group(
        "key", summary: "Create key files and show their addresses.",
        subcommands: [generate, address, HDCommands.mnemonic, HDCommands.derive])

    /// `key generate --out FILE`.
    static let generate = Command.leaf(
        "generate", summary: "Write a new random private key to a new file (mode 0600); print its address.",
        details: "The file holds 0x + 64 hex digits and a newline. An existing file is never overwritten.",
        synopsis: "--out FILE",
        flags: [.option("--out", value: "FILE", help: "the key file to create (must not exist)")],
        run: runGenerate)

    /// `key address KEY-SOURCE`.
    static let address = Command.leaf(
        "address", summary: "Print the address (EIP-55) of a signing key.",
        details: SigningKeyOptions.details,
        synopsis: SigningKeyOptions.synopsis,
        flags: SigningKeyOptions.flags,
        run: runAddress)

    /// Generates, writes and prints the address.
    static func runGenerate(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let path = try context.options.required("--out", "(the key file to create)")
        guard !path.isEmpty, path != "-" else {
            throw .invalidInput("--out: must be a file path (a key is never written to stdout)")
        }
        let key = PrivateKey.generate()
        try KeyFile.write(key, to: path)
        context.printLine(key.address.checksummed)
        return .success
    }

    /// Loads the key and prints its address.
    static func runAddress(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let signer = try await loadSigningBackend(context.options, io: context.io)
        context.printLine(signer.address.checksummed)
        return .success
    }
}
