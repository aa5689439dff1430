import EthereumPrimitives
import EthereumRPC
import Foundation
import RedirectSigner
import RedirectSignerTransports
import SignerKit
import Synchronization
import WalletConnectPay
import WalletConnectPayPage
import WalletConnectPayTesting

/// `signerkit pay`: pay a WalletConnect Pay payment link, or run a local Pay service.
///
/// Register `PayCommands.command` in `CommandRegistry.commands`.
enum PayCommands {
    /// `pay PAYMENT-LINK …` and `pay serve-local …` (one leaf: the first argument decides).
    static let command = Command.leaf(
        "pay", summary: "Pay a WalletConnect Pay payment link (or run a local Pay service: pay serve-local).",
        details: """
            Fetches the payment's options for the accounts, takes --option or the first option it can
            complete (options with eth_sendTransaction need --rpc-url; options with data collection need
            --collect-data), signs the option's actions with the key, confirms them and polls until the
            status is final, then prints every step (merchant, amount, options, actions, results, statuses).
            Without --account the key's address is offered on every chain the client supports (Base, Ethereum,
            Optimism, Arbitrum One, Polygon: eip155:8453, 1, 10, 42161, 137), as the integration guide asks.
            Exit status: 0 when the payment succeeded; 1 when it ended otherwise (failed, expired, cancelled:
            the steps are printed); 65 for invalid input or any error on the way (Pay API, network, signing:
            one "error: …" line on stderr, nothing on stdout).

            \(TransactionSafetyOptions.details)

            Before anything is signed, every action of the option is previewed ("preview: action[i] …" lines)
            and checked against the option: ERC-3009 and Permit2 only for the option's asset, at most its
            amount, from its account, on its chain, valid no later than its expiry plus one hour; EIP-2612
            permits and ERC-20 approvals only to the Permit2 contract; any other action kind is refused unless
            --allow-unrecognized-actions. A refused option is skipped ("skipped: …") by auto-selection and
            refused (exit 65) when chosen with --option. \(PreviewOptions.policyDetails)

            Data collection in a browser (the default when the chosen option collects data and no
            --collect-data is given; --data-page asks for it in any case): the option's data-collection form is
            shown as a wallet's web view would show it, framed in a page on 127.0.0.1 whose full address goes
            to standard error ("open: http://127.0.0.1:<port>/pay/<token>"); --open also starts the desktop's
            browser on it. The payment goes on once the form reports IC_COMPLETE (confirm then carries no
            collectedData: the form sent the answers), and ends with exit 65 when it reports IC_ERROR (its text
            in the error line) or gives no answer within \(dataPageTimeoutText). --collect-data FILE alone is
            for unattended use: its answers go with confirm and no page is shown; with --data-page they prefill
            the form instead.

            signerkit pay serve-local [--port N] [--rpc-url URL] runs a local Pay service on 127.0.0.1
            (any https://pay.walletconnect.com/?pid=pay_<name> link is created on first use) until
            interrupted; its first line is "listening http://127.0.0.1:<port>", and the same line goes to standard
            error once it accepts connections.

            \(SigningKeyOptions.details)
            """,
        synopsis:
            "PAYMENT-LINK \(SigningKeyOptions.synopsis) [--account CAIP10]... [options]\n"
            + "       signerkit pay serve-local [--port N] [--rpc-url URL]",
        flags: SigningKeyOptions.flags + TransactionSafetyOptions.capAndJournalFlags + [
            .option(
                "--account", value: "CAIP10", repeatable: true, help: "an account to pay from, e.g. eip155:8453:0x…"),
            .option("--api-url", value: "URL", help: "the Pay API (default https://api.pay.walletconnect.com)"),
            .option("--api-key", value: "K", help: "removed: a key on the command line is visible to every user"),
            .option(
                "--api-key-file", value: "FILE",
                help: "authenticate with the API key in FILE (mode 0600; or set SIGNERKIT_PAY_API_KEY)"),
            .option(
                "--app-id", value: "A", help: "authenticate with a public App-Id (with --client-id or a fresh one)"),
            .option("--client-id", value: "ID", help: "the Client-Id sent with --app-id"),
            .option("--option", value: "ID", help: "the option to pay with (default: the first that can be completed)"),
            .option(
                "--max-poll-ms", value: "N", help: "long-poll time and deadline for the final status (default 60000)"),
            .option(
                "--rpc-url", value: "URL",
                help: "Ethereum JSON-RPC node for eth_sendTransaction (serve-local: to check tx hashes)"),
            .option(
                "--collect-data", value: "FILE",
                help: "JSON answers for data collection ({\"fullName\":…} or {\"fields\":[…]})"),
            .flag(
                "--data-page",
                help: "show the data-collection form in a browser page on 127.0.0.1 (its URL on stderr; the default"
                    + " without --collect-data)"),
            .flag("--open", help: "like --data-page, and open the page in the desktop's browser (xdg-open)"),
            .flag(
                "--log",
                help: "one JSON line on stderr per Pay API request and answer (method, endpoint, path, sizes, status)"),
            .option("--port", value: "N", help: "serve-local: the port (default 0: any free port)"),
            .flag(
                "--allow-unrecognized-actions",
                help: "sign option actions that are neither ERC-3009, Permit2 nor a Permit2 approval"),
        ] + PreviewOptions.signingFlags,
        positionals: [.positional("PAYMENT-LINK|serve-local", help: "a payment link, payment id or wallet deep link")],
        run: run)

    /// The flags `serve-local` accepts.
    static let serveFlags: Set<String> = ["--port", "--rpc-url"]

    /// Dispatches on the first argument.
    static func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let target = context.options.positional(0) ?? ""
        if target == "serve-local" { return try await serveLocal(context) }
        return try await pay(context, link: target)
    }

    // MARK: - pay

    static func pay(_ context: CommandContext, link: String) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        if options.has("--port") { throw context.usageError("--port is for serve-local") }
        let paymentId: String
        do { paymentId = try PaymentLink.paymentId(fromLinkOrDeepLink: link) } catch {
            // The link is quoted abbreviated and redacted, however the error spells it.
            let text = "\(error)".replacingOccurrences(
                of: link.debugDescription, with: TextSafety.displayArgument(link))
            throw .invalidInput("PAYMENT-LINK: \(text)")
        }
        let baseURL = try url(options.value("--api-url"), flag: "--api-url") ?? PayClientConfiguration.productionURL
        let authentication = try authentication(context)
        let maxPollMs =
            try options.integer("--max-poll-ms", in: 0...3_600_000) ?? 60_000
        let rpcURL = try url(options.value("--rpc-url"), flag: "--rpc-url")
        var collected: CollectedData?
        if let path = options.value("--collect-data") {
            let text = try InputSource.file(path).readText(io: context.io)
            do { collected = try CollectedData(json: try JSONValue(parsing: text)) } catch {
                throw .invalidInput("\(TextSafety.displayArgument(path)): \(error)")
            }
        }
        var accounts: [AccountID] = []
        for text in options.allValues("--account") {
            do { accounts.append(try AccountID(text)) } catch { throw .invalidInput("--account: \(error)") }
        }
        try SigningKeyOptions.checkPresent(options)
        let signer = try await loadSigningKey(options, io: context.io)
        if accounts.isEmpty { accounts = PayAccounts.accounts(for: signer.address) }
        for account in accounts where account.ethereumAddress != signer.address {
            throw .invalidInput("--account \(account): not the signing key's address \(signer.address.checksummed)")
        }
        accounts = PayAccounts.unique(accounts)

        var nodes: [ChainID: any EthereumNode] = [:]
        if let rpcURL {
            let node = JSONRPCClient(url: rpcURL)
            let chain: ChainID
            do { chain = try ChainID(eip155ChainID: try await node.chainId()) } catch {
                throw .invalidInput("--rpc-url: \(error)")
            }
            nodes[chain] = node
        }
        var configuration = DispatchConfiguration()
        if !nodes.isEmpty { configuration.journal = try TransactionSafetyOptions.journal(options, io: context.io) }
        configuration.previewer = try PreviewOptions.previewer(options)
        let policies = try TransactionSafetyOptions.policies(options) + PreviewOptions.policies(options)
        let dispatcher = RpcDispatcher(nodes: nodes, configuration: configuration) { policies }
        do { try dispatcher.register(signer) } catch { throw .invalidInput("\(error)") }
        var payConfiguration = PayClientConfiguration(baseURL: baseURL, authentication: authentication)
        if options.has("--log") {
            let io = context.io
            payConfiguration.log = { event in io.writeStandardError(event.json.serialized + "\n") }
        }
        let client = PayClient(configuration: payConfiguration)
        // The steps are printed once the payment reaches a final status: an error on the way leaves
        // stdout empty (one "error: …" line on stderr, exit status 65).
        let printer = StepPrinter()
        var flow = PayFlow(
            client: client, dispatcher: dispatcher, broadcastChains: Set(nodes.keys), collectedData: collected,
            maxPollMs: maxPollMs, onStep: { printer.print($0) })
        flow.optionCheck.allowsUnrecognizedActions = options.has("--allow-unrecognized-actions")
        let pageHost = try dataPageHost(context, flow: &flow)
        let final: PaymentStatusResponse
        let outcome: Result<PaymentStatusResponse, PayError>
        do {
            outcome = .success(
                try await flow.pay(link: paymentId, accounts: accounts, optionId: options.value("--option")))
        } catch {
            outcome = .failure(error)
        }
        await pageHost?.stop()
        do {
            final = try outcome.get()
        } catch {
            let failure = CommandFailure.invalidInput(message(for: error, hasNode: !nodes.isEmpty))
            guard case .signing(let dispatchError) = error else { throw failure }
            // A policy refusal is one `error: action[i] (method): refused by policy …` line, as for `sign`.
            if case .policyViolation = dispatchError.kind, dispatchError.broadcast.isEmpty {
                throw CommandFailure.invalidInput(dispatchError.description)
            }
            throw failure.noting(TransactionSafetyOptions.broadcastNotes(dispatchError))
        }
        context.printLine("accounts: " + PayAccounts.wire(accounts).joined(separator: ", "))
        for line in printer.lines { context.printLine(line) }
        return final.status == .succeeded ? .success : .failure
    }

    /// How long the data-collection page may take (from the moment it is shown).
    static let dataPageTimeout = Duration.seconds(900)
    static let dataPageTimeoutText = "15 minutes"

    /// Unless `--collect-data` answers unattended (without `--data-page` or `--open`): a page host on
    /// 127.0.0.1 set as the flow's data-collection handler, announcing each page on stderr (`open: URL`, in
    /// full) and, with `--open`, starting the browser.
    static func dataPageHost(_ context: CommandContext, flow: inout PayFlow) throws(CommandFailure)
        -> DataCollectionPageHost?
    {
        let options = context.options
        guard options.has("--data-page") || options.has("--open") || !options.has("--collect-data") else { return nil }
        let host: DataCollectionPageHost
        do { host = try DataCollectionPageHost() } catch { throw .invalidInput("--data-page: \(error)") }
        let io = context.io
        let browser = options.has("--open")
        flow.dataCollectionHandler = host.handler(timeout: dataPageTimeout) { page in
            io.writeStandardError("open: \(page.absoluteString)\n")
            if browser { try? await URLOpener.systemBrowserIgnoringFailure.open(page.absoluteString) }
        }
        return host
    }

    /// The `Api-Key` (from `--api-key-file` or `$SIGNERKIT_PAY_API_KEY`) or `App-Id` + `Client-Id`,
    /// or none. `--api-key K` is refused: a key on the command line is visible to every user.
    static func authentication(_ context: CommandContext) throws(CommandFailure) -> PayAuthentication {
        let options = context.options
        if options.has("--api-key") {
            throw .invalidInput(
                "--api-key is no longer accepted (a command line is visible to every user): put the key in a file "
                    + "of mode 0600 and pass --api-key-file FILE, or set SIGNERKIT_PAY_API_KEY")
        }
        if options.has("--api-key-file") && options.has("--app-id") {
            throw context.usageError("--api-key-file and --app-id cannot be used together")
        }
        let key =
            try options.value("--api-key-file").map { (path) throws(CommandFailure) in
                try APIKeyFile.read(path, allowInsecure: SecretFile.allowsInsecure(options))
            } ?? context.io.environment["SIGNERKIT_PAY_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        if let app = options.value("--app-id") {
            let client = options.value("--client-id") ?? UUID().uuidString.lowercased()
            return .appId(app, clientId: client)
        }
        if options.has("--client-id") { throw context.usageError("--client-id needs --app-id") }
        if let key { return .apiKey(key) }
        return .none
    }

    /// The most characters of a Pay error printed.
    static let maximumErrorLength = 600

    /// The error's text, with a hint when an option needed a node and none was given.
    static func message(for error: PayError, hasNode: Bool) -> String {
        var text = "\(error)"
        // The text may quote what the server answered: keep the line bounded however long that was.
        if text.count > maximumErrorLength { text = String(text.prefix(maximumErrorLength)) + "…" }
        guard !hasNode, text.contains("needs a node") else { return text }
        return text + " (pass --rpc-url)"
    }

    // MARK: - serve-local

    static func serveLocal(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let given = context.options.values.keys.filter { !serveFlags.contains($0) }.sorted()
        if let flag = given.first { throw context.usageError("serve-local does not take \(flag)") }
        let port = try context.options.integer("--port", in: 0...65_535) ?? 0
        var node: (any EthereumNode)?
        if let rpcURL = try url(context.options.value("--rpc-url"), flag: "--rpc-url") {
            node = JSONRPCClient(url: rpcURL)
        }
        let service: LocalPayService
        do {
            service = try LocalPayService(
                configuration: LocalPayService.Configuration(port: UInt16(port), node: node, autoCreatePayments: true))
        } catch {
            throw .invalidInput("serve-local: \(error)")
        }
        let demo = service.createPayment(LocalPayService.PaymentSpec(id: "pay_signerkit_demo", amountCents: 150))
        StopSignal.install()
        context.printLine("listening \(service.baseURL.absoluteString)")
        ReadyLine.announce(service.baseURL.absoluteString, to: context.io)
        context.printLine("payment link: \(service.paymentLink(for: demo))")
        context.printLine(
            "any https://pay.walletconnect.com/?pid=pay_<name> link is created on first use; Ctrl-C stops")
        while !StopSignal.requested {
            try? await Task.sleep(for: .milliseconds(100))
        }
        service.stop()
        return .success
    }

    // MARK: - helpers

    static func url(_ text: String?, flag: String) throws(CommandFailure) -> URL? {
        guard let text else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else { throw .invalidInput("\(flag): not an http(s) URL") }
        return url
    }
}

/// Turns each ``PayFlow/Step`` into output lines, kept until the command prints them.
private final class StepPrinter: Sendable {
    private let buffer = Mutex<[String]>([])

    /// The lines so far, in order.
    var lines: [String] { buffer.withLock { $0 } }

    func print(_ step: PayFlow.Step) {
        switch step {
        case .paymentId(let id):
            line("payment: \(Self.echo(id))")
        case .options(let answer):
            if let info = answer.info {
                line("merchant: \(Self.echo(info.merchant.name))")
                line("amount: \(Self.echo("\(info.amount)"))")
                line("status: \(Self.echo("\(info.status)"))")
            }
            line("options: \(answer.options.count)")
            for option in answer.options {
                var parts = [option.id, option.amount.description, option.account].map { Self.echo($0) }
                parts.append(option.needsFetch ? "actions fetched on selection" : "\(option.actions.count) action(s)")
                if option.needsDataCollection { parts.append("data collection") }
                parts.append("eta \(option.etaS)s")
                line("  " + parts.joined(separator: " | "))
            }
        case .optionSkipped(let option, let reason):
            line("skipped: \(Self.echo(option.id)): \(reason)")
        case .optionSelected(let option):
            line(
                "option: \(Self.echo(option.id)) (\(Self.echo(option.amount.description)) from \(Self.echo(option.account)))"
            )
        case .dataCollection(_, let url):
            line("data collection: \(url.map { Self.echo($0.absoluteString) } ?? "(no page)")")
        case .actions(_, let actions):
            for (i, action) in actions.enumerated() { line("action[\(i)]: \(Self.describe(action))") }
        case .preview(_, let previews):
            for preview in previews { line("preview: \(preview.line)") }
        case .signed(let signed):
            for (i, result) in signed.results.enumerated() { line("result[\(i)]: \(result)") }
        case .status(let status):
            var text = "status: \(Self.echo("\(status.status)"))"
            if let info = status.info {
                // A transaction hash is 64 hex digits: shown (bounded), not redacted.
                text += " tx \(TextSafety.bounded("\(info.txId)")) (\(Self.echo("\(info.optionAmount)")))"
            }
            if !status.isFinal, let poll = status.pollInMs { text += " (poll in \(poll) ms)" }
            line(text)
        case .finished(let status):
            line("final: \(Self.echo("\(status.status)"))")
        }
    }

    private func line(_ text: String) { buffer.withLock { $0.append(TextSafety.singleLine(text)) } }

    /// A value from the Pay API (or the link) as a step shows it: at most 80 characters, runs of 64+
    /// hex digits redacted (``TextSafety/echoed(_:)``).
    static func echo(_ value: some StringProtocol) -> String { TextSafety.echoed(value) }

    /// `eip155:8453 eth_signTypedData_v4 ReceiveWithAuthorization`, `… eth_sendTransaction to 0x… approve`.
    static func describe(_ action: WalletRpcAction) -> String {
        var text = "\(echo(action.chainId.description)) \(echo(action.method))"
        guard let params = (try? JSONValue(parsing: action.params))?.arrayValue else { return text }
        switch action.method {
        case "eth_signTypedData_v4":
            if params.count > 1 {
                let typed = params[1].stringValue.flatMap { try? JSONValue(parsing: $0) } ?? params[1]
                if let primary = typed["primaryType"]?.stringValue { text += " \(echo(primary))" }
            }
        case "eth_sendTransaction", "eth_signTransaction":
            if let tx = params.first {
                if let to = tx["to"]?.stringValue { text += " to \(echo(to))" }
                if let data = tx["data"]?.stringValue ?? tx["input"]?.stringValue,
                    data.lowercased().hasPrefix("0x095ea7b3")
                {
                    text += " (ERC-20 approve)"
                }
            }
        default:
            break
        }
        return text
    }
}
