import EthereumPrimitives
import EthereumRPC
import Foundation
import SignerKit

/// `signerkit siwe verify|sign`: EIP-4361 "Sign-In with Ethereum" messages.
enum SiweCommands {
    /// The `siwe` group.
    static let command = Command.group(
        "siwe", summary: "Verify or sign EIP-4361 Sign-In with Ethereum messages.",
        subcommands: [build, verify, sign])

    /// `--message-file M`.
    static let messageFlag = FlagSpec.option(
        "--message-file", value: "FILE|-",
        help: "the EIP-4361 message (exact bytes; one final line break is dropped); - reads stdin")

    /// `siwe build --domain D --address 0x… --uri U --chain-id N [options]`.
    static let build = Command.leaf(
        "build", summary: "Print an EIP-4361 message built from fields (checked against the grammar).",
        details: """
            The text is printed with one final line break, which --message-file drops again. Without --nonce a
            random 16-character nonce is chosen; without --issued-at the current time (UTC, whole seconds).
            """,
        synopsis:
            "--domain D --address 0x… --uri URI --chain-id N [--scheme S] [--statement S] [--nonce N] [--issued-at T] [--expiration-time T] [--not-before T] [--request-id ID] [--resource URI]…",
        flags: [
            .option("--scheme", value: "S", help: "the origin's scheme written before the domain (https)"),
            .option("--domain", value: "D", help: "the requesting domain (an RFC 3986 authority)"),
            .option("--address", value: "0x…", help: "the account signing in (written in EIP-55 form)"),
            .option("--statement", value: "S", help: "the one-line statement"),
            .option("--uri", value: "URI", help: "the URI the sign-in is for"),
            .option("--chain-id", value: "N", help: "the EIP-155 chain id (decimal)"),
            .option("--nonce", value: "N", help: "at least 8 letters and digits (default: 16 random ones)"),
            .option("--issued-at", value: "T", help: "RFC 3339 date-time (default: now)"),
            .option("--expiration-time", value: "T", help: "RFC 3339 date-time"),
            .option("--not-before", value: "T", help: "RFC 3339 date-time"),
            .option("--request-id", value: "ID", help: "the request id"),
            .option("--resource", value: "URI", repeatable: true, help: "a resource URI (repeatable)"),
        ],
        run: runBuild)

    /// `siwe verify --message-file M --signature 0x… [--domain D] [--at RFC3339]`.
    static let verify = Command.leaf(
        "verify", summary: "Verify a signed sign-in message; print the signer's address (EIP-55).",
        details: """
            The message is parsed strictly (EIP-4361 ABNF); the signature must be low-s and recover to the
            message's address over the EIP-191 digest; --domain (example.com, or https://example.com to check
            the scheme too), --uri, --chain-id and --nonce must match when given; Not Before <= --at (default:
            now) < Expiration Time. A failed check exits 65 naming it: "SIWE check domain failed: …".
            With --rpc-url (a node of the message's chain), a message whose address is a contract account (a
            smart wallet) verifies when the account accepts the signature (ERC-1271 isValidSignature, or ERC-6492
            for an account not deployed yet); the signature may then be any length. An unreachable node exits 65.
            """,
        synopsis:
            "--message-file FILE|- --signature 0x… [--domain D] [--at RFC3339] [--uri URI] [--chain-id N] [--nonce NONCE] [--rpc-url URL]",
        flags: [
            messageFlag,
            .option(
                "--signature", value: "0x…", help: "the signature r‖s‖v (with --rpc-url: any contract account's bytes)"),
            .option("--rpc-url", value: "URL", help: "JSON-RPC node of the message's chain, to ask a contract account"),
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

    /// Builds and prints a message.
    static func runBuild(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        let domain = try options.required("--domain", "(the requesting domain)")
        let addressText = try options.required("--address", "(the account signing in)")
        let uri = try options.required("--uri", "(the URI the sign-in is for)")
        let chainId = try decimalChainId(try options.required("--chain-id", "(the EIP-155 chain id)"))
        let address: Address
        do { address = try Address(addressText) } catch { throw .invalidInput("--address: \(error)") }
        func time(_ flag: String) throws(CommandFailure) -> RFC3339DateTime? {
            guard let text = options.value(flag) else { return nil }
            do { return try RFC3339DateTime(text) } catch {
                throw .invalidInput("\(flag): \(TextSafety.displayArgument(text)) is \(error)")
            }
        }
        let issuedAt: RFC3339DateTime
        if let given = try time("--issued-at") {
            issuedAt = given
        } else {
            do {
                issuedAt = try RFC3339DateTime(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
            } catch { throw .invalidInput("--issued-at: \(error)") }
        }
        let resources = options.allValues("--resource")
        let expirationTime = try time("--expiration-time")
        let notBefore = try time("--not-before")
        let message: SignInMessage
        do {
            message = try SignInMessage(
                scheme: options.value("--scheme"), domain: domain, address: address,
                statement: options.value("--statement"), uri: uri, chainId: chainId,
                nonce: options.value("--nonce") ?? randomNonce(), issuedAt: issuedAt, expirationTime: expirationTime,
                notBefore: notBefore, requestId: options.value("--request-id"),
                resources: resources.isEmpty ? nil : resources)
        } catch {
            throw .invalidInput(error.description)
        }
        context.printLine(message.text)
        return .success
    }

    /// 16 random letters and digits.
    static func randomNonce() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<16).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// A decimal chain id, as `--chain-id` takes it.
    static func decimalChainId(_ text: String) throws(CommandFailure) -> UInt256 {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = try? UInt256(text: text)
        else { throw .invalidInput("--chain-id: expected a decimal chain id") }
        return value
    }

    /// Verifies and prints the signer.
    static func runVerify(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        if let url = context.options.value("--rpc-url") { return try await runVerify(context, node: url) }
        let signature = try SignatureInput.read(context.options)
        let at = try moment(context.options)
        let chainId = try context.options.value("--chain-id").map { (text) throws(CommandFailure) in
            try decimalChainId(text)
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

    /// Verifies through the node at `url` (any account) and prints the signer.
    static func runVerify(_ context: CommandContext, node url: String) async throws(CommandFailure) -> ExitCode {
        let node = JSONRPCClient(url: try ActionCommands.nodeURL(url))
        let text = try context.options.required("--signature", "(the 0x-hex signature)")
        let signature: [UInt8]
        do { signature = try Hex.decode(text) } catch { throw .invalidInput("--signature: \(error)") }
        let at = try moment(context.options)
        let chainId = try context.options.value("--chain-id").map { (text) throws(CommandFailure) in
            try decimalChainId(text)
        }
        let message = try readMessage(context)
        do {
            _ = try await message.verifyChecks(
                signature: signature, node: node, expectedDomain: context.options.value("--domain"),
                expectedURI: context.options.value("--uri"), expectedChainId: chainId,
                expectedNonce: context.options.value("--nonce"), at: at)
        } catch {
            throw .invalidInput(error.description)
        }
        context.printLine(message.address.checksummed)
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
