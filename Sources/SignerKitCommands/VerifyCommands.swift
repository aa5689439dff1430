import EIP712
import EthereumPrimitives
import EthereumRPC
import SignerKit

/// `signerkit verify message|typed-data`: whether a signature is valid *for an account*, an EOA or a smart
/// account (ERC-1271, ERC-6492 through `--rpc-url`).
enum VerifyCommands {
    /// The `verify` group.
    static let command = Command.group(
        "verify", summary: "Check a signature for an account: EOA, or ERC-1271 / ERC-6492 through a node.",
        subcommands: [message, typedData])

    /// The details both leaves share.
    static let details = """
        Prints exactly one line: "valid eoa" (a 65-byte low-s signature recovering to --address; no node is
        asked), "valid erc1271" (the account's isValidSignature(digest, signature) answered 0x1626ba7e) or
        "valid erc6492" (a signature ending in the ERC-6492 suffix, checked by SignerKit's validator in a
        deployless eth_call that deploys the account inside the call when it has no code), and exits 0.
        Otherwise prints "invalid", the reason on stderr, and exits 1. Without --rpc-url only an EOA signature
        can be valid. Invalid input or an unreachable node exits 65 with one "error:" line.
        """

    /// `--address A`, `--signature 0x…` (any length), `--rpc-url URL`.
    static let flags: [FlagSpec] = [
        .option("--address", value: "0x…", help: "the account the signature is for"),
        .option("--signature", value: "0x…", help: "the signature bytes (65 for an EOA; any for a contract account)"),
        .option("--rpc-url", value: "URL", help: "JSON-RPC node of the account's chain (for contract accounts)"),
    ]

    /// `verify message (--text T | --hex 0x…) --address A --signature 0x… [--rpc-url URL]`.
    static let message = Command.leaf(
        "message", summary: "Check a personal_sign (EIP-191) signature for an account.",
        details: details,
        synopsis: "\(MessageInput.synopsis) --address 0x… --signature 0x… [--rpc-url URL]",
        flags: MessageInput.flags + flags,
        run: runMessage)

    /// `verify typed-data FILE --address A --signature 0x… [--rpc-url URL]`.
    static let typedData = Command.leaf(
        "typed-data", summary: "Check an EIP-712 typed-data signature for an account.",
        details: details,
        synopsis: "[FILE|-] --address 0x… --signature 0x… [--rpc-url URL]",
        flags: flags,
        positionals: [TypedDataInput.positional],
        run: runTypedData)

    /// Checks a personal message's signature.
    static func runMessage(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let bytes = try MessageInput.bytes(context.options)
        return try await check(PersonalMessage.digest(bytes), context)
    }

    /// Checks a typed-data signature.
    static func runTypedData(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let digest = try TypedDataInput.hashes(TypedDataInput.read(context)).digest
        return try await check(digest, context)
    }

    /// Reads the account, the signature and the node, verifies, and prints the verdict.
    static func check(_ digest: Digest32, _ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        let addressText = try options.required("--address", "(the account the signature is for)")
        let account: Address
        do { account = try Address(addressText) } catch { throw .invalidInput("--address: \(error)") }
        let signatureText = try options.required("--signature", "(the 0x-hex signature)")
        let signature: [UInt8]
        do { signature = try Hex.decode(signatureText) } catch { throw .invalidInput("--signature: \(error)") }
        let node = try options.value("--rpc-url").map { (text) throws(CommandFailure) in
            JSONRPCClient(url: try ActionCommands.nodeURL(text))
        }
        let claim = AccountSignatureClaim(account: account, digest: digest, signature: signature)
        let verdict: AccountSignatureVerdict
        do { verdict = try await AccountSignatureVerifier.verify([claim], node: node)[0] } catch {
            throw .invalidInput("--rpc-url: \(error)")
        }
        switch verdict {
        case .valid(let kind):
            context.printLine("valid \(kind.rawValue)")
            return .success
        case .invalid(let reason):
            context.printLine("invalid")
            context.io.writeStandardError(TextSafety.singleLine(reason) + "\n")
            return .failure
        }
    }
}
