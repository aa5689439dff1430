import EthereumPrimitives
import Foundation
import SignerKit

/// `signerkit siwe verify|sign`: EIP-4361 "Sign-In with Ethereum" messages.
enum SiweCommands {
    /// The `siwe` group.
    static let command = Command.group(
        "siwe", summary: "Verify or sign EIP-4361 Sign-In with Ethereum messages.",
        subcommands: [verify, sign])

    /// `--message-file M`.
    static let messageFlag = FlagSpec.option(
        "--message-file", value: "FILE|-",
        help: "the EIP-4361 message (exact bytes; one final line break is dropped); - reads stdin")

    /// `siwe verify --message-file M --signature 0x… [--domain D] [--at RFC3339]`.
    static let verify = Command.leaf(
        "verify", summary: "Verify a signed sign-in message; print the signer's address (EIP-55).",
        details: """
            The message is parsed strictly (EIP-4361 ABNF); the signature must be low-s and recover to the
            message's address over the EIP-191 digest; --domain (example.com, or https://example.com to check
            the scheme too), --uri, --chain-id and --nonce must match when given; Not Before <= --at (default:
            now) < Expiration Time. A failed check exits 65 naming it: "SIWE check domain failed: …".
            """,
        synopsis:
            "--message-file FILE|- --signature 0x… [--domain D] [--at RFC3339] [--uri URI] [--chain-id N] [--nonce NONCE]",
        flags: [
            messageFlag, SignatureInput.flag,
            .option("--domain", value: "D", help: "the expected domain (or scheme://domain)"),
            .option("--uri", value: "URI", help: "the expected URI"),
            .option("--chain-id", value: "N", help: "the expected Chain ID (decimal)"),
            .option("--nonce", value: "NONCE", help: "the expected nonce"),
            .option("--at", value: "RFC3339", help: "the moment to judge the validity window at (default: now)"),
        ],
        run: runVerify)

    /// `siwe sign --message-file M KEY-SOURCE`.
    static let sign = Command.leaf(
        "sign", summary: "Sign a sign-in message (personal_sign); print the signature r‖s‖v (v = 27/28).",
        details: "The message is parsed strictly first and must sign in the key's own account.\n"
            + SigningKeyOptions.details,
        synopsis: "--message-file FILE|- \(SigningKeyOptions.synopsis)",
        flags: [messageFlag] + SigningKeyOptions.flags,
        run: runSign)

    /// Verifies and prints the signer.
    static func runVerify(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let signature = try SignatureInput.read(context.options)
        let at = try moment(context.options)
        let chainId = try context.options.value("--chain-id").map { (text) throws(CommandFailure) in
            guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let value = try? UInt256(text: text)
            else { throw .invalidInput("--chain-id: expected a decimal chain id") }
            return value
        }
        let message = try readMessage(context)
        let signer: Address
        do {
            signer = try message.verifyChecks(
                signature: signature, expectedDomain: context.options.value("--domain"),
                expectedURI: context.options.value("--uri"), expectedChainId: chainId,
                expectedNonce: context.options.value("--nonce"), at: at)
        } catch {
            throw .invalidInput(error.description)
        }
        context.printLine(signer.checksummed)
        return .success
    }

    /// Signs and prints the signature.
    static func runSign(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        try SigningKeyOptions.checkPresent(context.options)
        let message = try readMessage(context)
        let signer = try await loadSigningKey(context.options, io: context.io)
        guard message.address == signer.address else {
            throw .invalidInput(
                "\(label(context)): the message signs in \(message.address.checksummed), not the key's account \(signer.address.checksummed)"
            )
        }
        let signature = try await SignerKitCommands.sign(message.personalSignDigest, with: signer)
        context.printLine(signature.hex)
        return .success
    }

    /// The `--message-file` source's name in errors.
    private static func label(_ context: CommandContext) -> String {
        InputSource(positional: context.options.value("--message-file")).label
    }

    /// Reads and parses `--message-file`, dropping one final line break (an EIP-4361 message has none).
    static func readMessage(_ context: CommandContext) throws(CommandFailure) -> SignInMessage {
        let path = try context.options.required("--message-file", "(the EIP-4361 message, or - for stdin)")
        let source = InputSource(positional: path)
        var bytes = try source.readBytes(io: context.io)
        if bytes.last == 0x0A { bytes.removeLast() }
        do { return try SignInMessage(bytes: bytes) } catch { throw .invalidInput("\(source.label): \(error)") }
    }

    /// `--at`, or now.
    static func moment(_ options: ParsedOptions) throws(CommandFailure) -> Date {
        guard let text = options.value("--at") else { return Date() }
        do { return try RFC3339DateTime(text).date } catch {
            throw .invalidInput("--at: \(TextSafety.displayArgument(text)) is \(error)")
        }
    }
}
