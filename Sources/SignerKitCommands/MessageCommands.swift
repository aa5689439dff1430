import EthereumPrimitives

/// `signerkit message hash|sign`: EIP-191 `personal_sign` messages.
enum MessageCommands {
    /// The `message` group.
    static let command = Command.group(
        "message", summary: "Hash or sign EIP-191 personal messages (personal_sign).",
        subcommands: [hash, sign])

    /// `message hash (--text S | --hex 0x…)`.
    static let hash = Command.leaf(
        "hash", summary: "Print the personal_sign digest of a message.",
        details: "The digest is keccak256(\"\\x19Ethereum Signed Message:\\n\" + decimal length + message).",
        synopsis: MessageInput.synopsis,
        flags: MessageInput.flags,
        run: runHash)

    /// `message sign (--text S | --hex 0x…) KEY-SOURCE`.
    static let sign = Command.leaf(
        "sign", summary: "Sign a personal message; print the 65-byte signature r‖s‖v (v = 27/28).",
        details: SigningKeyOptions.details,
        synopsis: "\(MessageInput.synopsis) \(SigningKeyOptions.synopsis)",
        flags: MessageInput.flags + SigningKeyOptions.flags,
        run: runSign)

    /// Prints the digest.
    static func runHash(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let message = try MessageInput.bytes(context.options)
        context.printLine(PersonalMessage.digest(message).hex)
        return .success
    }

    /// Prints the signature.
    static func runSign(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let message = try MessageInput.bytes(context.options)
        if try SigningKeyOptions.checkPresent(context.options) == .remote {
            // personal_sign's digest does not depend on the chain: any eip155 chain routes it.
            context.printLine(
                try await RemoteSigning.result(.personalSign, chain: 1, context.options, io: context.io) {
                    .array([.string(Hex.encode(message)), .string($0.checksummed)])
                })
            return .success
        }
        let signer = try await loadSigningKey(context.options, io: context.io)
        let signature = try await SignerKitCommands.sign(PersonalMessage.digest(message), with: signer)
        context.printLine(signature.hex)
        return .success
    }
}
