import EthereumPrimitives
import Foundation
import SignerKit

/// `signerkit preview --actions FILE [--json]`: what each wallet RPC action really does, without signing.
enum PreviewCommands {
    /// `--json`.
    static let jsonFlag = FlagSpec.flag("--json", help: "print a JSON array, one object per action")

    /// `preview --actions FILE|- [--json] [--tokens FILE] [--descriptor FILE]…`.
    static let command = Command.leaf(
        "preview", summary: "Show what each wallet RPC action really does (token, amount, spender, deadline).",
        details: """
            Reads the actions as `sign` does and prints one line per action: chain, method, account, and the
            decoded intent (native transfer, contract creation, ERC-20 transfer/approve/transferFrom/
            increaseAllowance, EIP-2612 permit, Permit2, ERC-3009, SIWE, message, other typed data or contract
            call), amounts in base units and with decimals and symbol for known tokens, deadlines as UTC dates,
            and warnings (unlimited-amount, far-deadline: more than one year ahead, unrecognized, owner-mismatch,
            expired). With --json: a JSON array, one object per action, with index, chainId, method, account,
            kind, token, amount, spender/recipient, deadline (ISO 8601 UTC or null) and warnings.
            Nothing is signed and no key is needed. Invalid input exits 65 naming the action, as `sign`.

            \(PreviewOptions.details)
            """,
        synopsis: "--actions FILE|- [--json] \(PreviewOptions.synopsis)",
        flags: [ActionCommands.actionsFlag, jsonFlag] + PreviewOptions.previewFlags,
        run: run)

    /// Parses and previews the actions.
    static func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        let source = InputSource(
            positional: try options.required(
                ActionCommands.actionsFlag.name, "(the JSON array of actions; - reads stdin)"))
        var configuration = DispatchConfiguration()
        configuration.previewer = try PreviewOptions.previewer(options)
        let actions = try ActionCommands.parse(try source.readText(io: context.io))
        let previews: [SigningPreview]
        do { previews = try RpcDispatcher(configuration: configuration).preview(actions: actions) } catch {
            throw .invalidInput(error.description)
        }
        if options.has(jsonFlag.name) {
            context.printLine(JSONValue.array(previews.map(\.json)).serialized)
        } else {
            for preview in previews { context.printLine(preview.line) }
        }
        return .success
    }
}

/// The preview and policy options shared by `preview`, `sign` and `pay`.
enum PreviewOptions {
    /// `--tokens FILE`.
    static let tokensFlag = FlagSpec.option(
        "--tokens", value: "FILE", help: "JSON array of extra tokens {chainId, address, symbol, decimals}")
    /// `--descriptor FILE` (repeatable).
    static let descriptorFlag = FlagSpec.option(
        "--descriptor", value: "FILE", repeatable: true, help: "ERC-7730 clear-signing descriptor JSON (repeatable)")
    /// `--policy FILE`.
    static let policyFlag = FlagSpec.option(
        "--policy", value: "FILE", help: "JSON policy file (see docs/DISPATCHER.md, Policy files)")

    /// The flags of `preview`.
    static let previewFlags = [tokensFlag, descriptorFlag]
    /// The flags of `sign` and `pay`.
    static let signingFlags = [policyFlag, tokensFlag, descriptorFlag]

    /// Synopsis fragment.
    static let synopsis = "[--tokens FILE] [--descriptor FILE]…"

    /// Help text.
    static let details = """
        --tokens FILE adds tokens to the built-in registry (USDC, USDT, DAI on Ethereum, Base, OP Mainnet,
        Arbitrum One, Polygon); --descriptor FILE loads an ERC-7730 descriptor that renders matching typed
        data or calls (repeatable).
        """

    /// Help text for `--policy`.
    static let policyDetails = """
        --policy FILE loads a JSON policy file (allowedChains, allowedMethods, nativeValueCap, feeCap,
        gasLimitCap, tokenSpendCap, refuseUncappedTokens, noUnlimitedApprovals, allowedSpenders,
        allowedRecipients, maxValiditySeconds, requireRecognized); a refusal exits 65 with one
        `error: action[i] … refused by policy NAME: reason` line, and nothing is signed.
        """

    /// The previewer of the options: built-in tokens plus `--tokens`, descriptors of `--descriptor`.
    static func previewer(_ options: ParsedOptions) throws(CommandFailure) -> SigningPreviewer {
        var tokens = TokenRegistry()
        if let path = options.value(tokensFlag.name) {
            let text = try readFile(path)
            do { tokens = try tokens.adding(jsonText: text) } catch {
                throw .invalidInput("--tokens \(TextSafety.displayArgument(path)): \(error)")
            }
        }
        var descriptors = ClearSigningRegistry()
        for path in options.allValues(descriptorFlag.name) {
            let text = try readFile(path)
            do { descriptors = try descriptors.adding(jsonText: text) } catch {
                throw .invalidInput("--descriptor \(TextSafety.displayArgument(path)): \(error)")
            }
        }
        return SigningPreviewer(tokens: tokens, descriptors: descriptors)
    }

    /// The policies of `--policy FILE`, or none.
    static func policies(_ options: ParsedOptions) throws(CommandFailure) -> [any ActionPolicy] {
        guard let path = options.value(policyFlag.name) else { return [] }
        let text = try readFile(path)
        do { return try PolicyFile.policies(jsonText: text) } catch {
            throw .invalidInput("--policy \(TextSafety.displayArgument(path)): \(error)")
        }
    }
}

extension PreviewOptions {
    /// A named file as UTF-8 text.
    static func readFile(_ path: String) throws(CommandFailure) -> String {
        try InputSource.text(FileAccess.readAll(path), label: TextSafety.displayArgument(path))
    }
}
