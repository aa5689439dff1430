import EthereumPrimitives

/// `signerkit recover typed-data|message`: the address that made a signature.
enum RecoverCommands {
    /// The `recover` group.
    static let command = Command.group(
        "recover", summary: "Recover the signer's address (EIP-55) from a signature.",
        subcommands: [typedData, message])

    /// `recover typed-data [FILE|-] --signature 0x…`.
    static let typedData = Command.leaf(
        "typed-data", summary: "Print the address that signed EIP-712 typed data.",
        synopsis: "[FILE|-] --signature 0x…",
        flags: [SignatureInput.flag],
        positionals: [TypedDataInput.positional],
        run: runTypedData)

    /// `recover message (--text S | --hex 0x…) --signature 0x…`.
    static let message = Command.leaf(
        "message", summary: "Print the address that signed a personal message.",
        synopsis: "\(MessageInput.synopsis) --signature 0x…",
        flags: MessageInput.flags + [SignatureInput.flag],
        run: runMessage)

    /// Recovers from typed data.
    static func runTypedData(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let signature = try SignatureInput.read(context.options)
        let hashes = try TypedDataInput.hashes(TypedDataInput.read(context))
        context.printLine(try SignatureInput.recover(hashes.digest, signature).checksummed)
        return .success
    }

    /// Recovers from a personal message.
    static func runMessage(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let message = try MessageInput.bytes(context.options)
        let signature = try SignatureInput.read(context.options)
        context.printLine(try SignatureInput.recover(PersonalMessage.digest(message), signature).checksummed)
        return .success
    }
}
