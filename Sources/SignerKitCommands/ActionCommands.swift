import EthereumPrimitives
import EthereumRPC
import Foundation
import SignerKit

/// `signerkit sign --actions FILE`: a list of wallet RPC actions through SignerKit's dispatcher.
enum ActionCommands {
    /// `--actions FILE|-`.
    static let actionsFlag = FlagSpec.option(
        "--actions", value: "FILE|-", help: "JSON array of wallet RPC actions (- reads stdin)")

    /// `--rpc-url URL`.
    static let rpcURLFlag = FlagSpec.option(
        "--rpc-url", value: "URL", help: "JSON-RPC node of the actions' chain: fills nonce/gas/fees, broadcasts")

    /// `sign --actions FILE KEY-SOURCE [--rpc-url URL]`.
    static let command = Command.leaf(
        "sign", summary: "Sign a JSON array of wallet RPC actions; print the results as a JSON array.",
        details: """
            Each action is {"walletRpc":{"chainId":"eip155:N","method":M,"params":"<JSON text>"}} (SDK shape) or
            {"type":"walletRpc","data":{"chain_id":"eip155:N","method":M,"params":[…]}} (Pay wire shape); the
            shapes may be mixed. Methods: eth_signTypedData_v4, personal_sign, eth_signTransaction,
            eth_sendTransaction. The output is one JSON array line with one 0x string per action, in order: a
            signature (r‖s‖v, v = 27/28), a raw signed transaction (eth_signTransaction) or a transaction hash
            (eth_sendTransaction).

            Every action is checked before anything is signed; one bad action exits 65 naming its index
            (action[2]) and nothing is printed. With --rpc-url, the node's eth_chainId must equal each action's
            chain; the node fills a transaction's missing nonce (never below one already used by this batch or
            the journal), gas and fees, and eth_sendTransaction broadcasts and waits for the receipt: the result
            is the hash, and a reverted or unmined transaction exits 65 naming its hash. An action that follows
            an eth_sendTransaction of the same account is signed only once that transaction is mined with
            status 1. Without --rpc-url, transactions must be complete and eth_sendTransaction is refused.
            --threads N actions are parsed, hashed and checked at once (default: the number of cores); the
            output order is the action order whatever N is.

            \(TransactionSafetyOptions.details)

            \(PreviewOptions.policyDetails)

            \(SigningKeyOptions.details)
            """,
        synopsis:
            "--actions FILE|- \(SigningKeyOptions.synopsis) [--rpc-url URL] [--journal FILE] [--idempotency-key K] "
            + "[--policy FILE] [--threads N]",
        flags: [actionsFlag, rpcURLFlag, ThreadsOption.flag] + TransactionSafetyOptions.flags + SigningKeyOptions.flags
            + PreviewOptions.signingFlags,
        run: run)

    /// Parses, validates, signs and prints the results.
    static func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        let source = InputSource(
            positional: try options.required(actionsFlag.name, "(the JSON array of actions; - reads stdin)"))
        try SigningKeyOptions.checkPresent(options)
        let url = try options.value(rpcURLFlag.name).map(nodeURL)
        let policies = try TransactionSafetyOptions.policies(options) + PreviewOptions.policies(options)
        let previewer = try PreviewOptions.previewer(options)
        let idempotencyKey = try TransactionSafetyOptions.idempotencyKey(options)
        let actions = try parse(try source.readText(io: context.io))
        let signer = try await loadSigningBackend(options, io: context.io)

        var nodes: [ChainID: any EthereumNode] = [:]
        var configuration = DispatchConfiguration()
        configuration.previewer = previewer
        configuration.resolutionWorkers = try ThreadsOption.count(options)
        if let url {
            // Refuse bad actions before touching the network.
            try await validate(actions, account: signer.address, policies: policies, previewer: previewer)
            nodes = try await checkedNodes(url, for: actions)
            configuration.journal = try TransactionSafetyOptions.journal(options, io: context.io)
        }
        let dispatcher = RpcDispatcher(nodes: nodes, configuration: configuration) { policies }
        do { try signer.register(in: dispatcher) } catch { throw .invalidInput("\(error)") }
        let signed: SignedActions
        do { signed = try await dispatcher.sign(actions: actions, idempotencyKey: idempotencyKey) } catch {
            throw CommandFailure.invalidInput(error.description).noting(TransactionSafetyOptions.broadcastNotes(error))
        }
        context.printLine(JSONValue.array(signed.results.map(JSONValue.string)).serialized)
        return .success
    }

    /// The actions in the text.
    ///
    /// - Throws: 65 naming the index and field (`action[2].chainId: missing`) or the JSON error.
    static func parse(_ text: String) throws(CommandFailure) -> [WalletRpcAction] {
        do { return try WalletRpcAction.list(jsonText: text) } catch { throw .invalidInput(error.description) }
    }

    /// An `http(s)://` URL.
    static func nodeURL(_ text: String) throws(CommandFailure) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else {
            throw .invalidInput("--rpc-url: expected an http:// or https:// URL")
        }
        return url
    }

    /// Runs every action through the dispatcher's checks (parsing, chains, accounts, policies on given
    /// values) with a backend that signs nothing, so a bad action is reported before the node is contacted.
    static func validate(
        _ actions: [WalletRpcAction], account: Address, policies: [any ActionPolicy],
        previewer: SigningPreviewer = SigningPreviewer()
    ) async throws(CommandFailure) {
        // No node here, so dependent actions cannot be followed: that is checked with the node, later.
        var configuration = DispatchConfiguration(ordersDependentActions: false)
        configuration.previewer = previewer
        let dispatcher = RpcDispatcher(configuration: configuration) { policies }
        do { try dispatcher.register(ValidationBackend(accounts: [account])) } catch { throw .invalidInput("\(error)") }
        do { _ = try await dispatcher.sign(actions: actions) } catch {
            if case .backend = error.kind { return }
            throw .invalidInput(error.description)
        }
    }

    /// One client for `url`, registered for each `eip155` chain of the actions after checking that
    /// the node's `eth_chainId` is that chain.
    ///
    /// - Throws: 65 `action[i] (method): the node at --rpc-url reports chain id X, not eip155:Y`, or
    ///   the node error (`--rpc-url: eth_chainId: transport error: …`).
    static func checkedNodes(_ url: URL, for actions: [WalletRpcAction]) async throws(CommandFailure)
        -> [ChainID: any EthereumNode]
    {
        let client = JSONRPCClient(url: url)
        let nodeChain: UInt256
        do { nodeChain = try await client.chainId() } catch { throw .invalidInput("--rpc-url: \(error)") }
        var nodes: [ChainID: any EthereumNode] = [:]
        for (index, action) in actions.enumerated() where nodes[action.chainId] == nil {
            guard let chain = action.chainId.eip155ChainID else { continue }
            guard chain == nodeChain else {
                throw .invalidInput(
                    "action[\(index)] (\(action.method)): the node at --rpc-url reports chain id \(nodeChain.decimalString), "
                        + "not the action's chain \(action.chainId)")
            }
            nodes[action.chainId] = client
        }
        return nodes
    }
}

/// A backend that accepts every method for its accounts and signs nothing: it lets
/// ``ActionCommands/validate(_:account:)`` run the dispatcher's checks alone.
struct ValidationBackend: WalletRpcSigner {
    /// The signing key's account.
    let accounts: [Address]

    /// Every method.
    var methods: Set<RpcMethod> { RpcMethod.accountMethods }

    /// Refuses, after validation passed (the caller treats a backend error as success).
    func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        throw .unsupportedMethod("validation only")
    }
}
