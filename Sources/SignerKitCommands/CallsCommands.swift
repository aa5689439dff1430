import EthereumPrimitives
import EthereumRPC
import Foundation
import SignerKit

/// `signerkit calls send` and `calls status`: EIP-5792 batches (`wallet_sendCalls`, `wallet_getCallsStatus`)
/// from the command line, journalled like every transaction SignerKit sends.
enum CallsCommands {
    static let command = Command.group(
        "calls", summary: "EIP-5792 call batches: send calls atomically or in order, and read a batch's status.",
        subcommands: [send, status])

    /// `calls send KEY-SOURCE --rpc-url URL [--journal FILE] [--allow-delegate ADDR]… FILE`.
    static let send = Command.leaf(
        "send", summary: "Send a wallet_sendCalls params object's calls; print the batch id.",
        details: """
            FILE is the params object of EIP-5792's wallet_sendCalls (version "2.0.0"):
            {"version":"2.0.0","id":"…"(optional),"from":"0x…","chainId":"0x…","atomicRequired":true|false,
             "calls":[{"to":"0x…","value":"0x…","data":"0x…"},…]}.
            "from" must be the signing key's address and chainId the node's (--rpc-url).

            The calls run atomically in one transaction from the account to itself calling ERC-7821 execute when
            the account is delegated (EIP-7702) to an allowed batch executor; when it is not yet delegated and
            atomicRequired is true, that transaction also carries the account's authorization to the allowed
            executor (--allow-delegate ADDR, repeatable, or the "allowedDelegates" member of --policy FILE). With
            atomicRequired false and no delegation, the calls are sent one transaction after another, each once
            the previous is mined with status 1. atomicRequired true without an allowed executor exits 65 with
            EIP-5792's code 5760 in the message, nothing sent. Policies judge every call.

            The batch id (the request's "id", else a new one) is recorded in the journal before anything is signed;
            the same FILE again re-sends what was journalled and never signs twice, and the id with other calls is
            refused (5720). The id is printed once the transactions are sent; "calls status" tells what happened
            on chain.

            \(TransactionSafetyOptions.details)

            \(SigningKeyOptions.details)
            """,
        synopsis:
            "\(SigningKeyOptions.synopsis) --rpc-url URL [--journal FILE] [--allow-delegate ADDR]… [--policy FILE] FILE|-",
        flags: [ActionCommands.rpcURLFlag, AuthCommands.allowDelegateFlag, AuthCommands.allowAnyChainFlag]
            + TransactionSafetyOptions.capAndJournalFlags
            + SigningKeyOptions.flags + PreviewOptions.signingFlags,
        positionals: [.positional("FILE|-", help: "the wallet_sendCalls params object; - reads stdin")],
        run: runSend)

    /// `calls status --rpc-url URL [--journal FILE] ID`.
    static let status = Command.leaf(
        "status", summary: "Print a batch's EIP-5792 status object (wallet_getCallsStatus) as one JSON line.",
        details: """
            Reads the batch recorded under ID in the journal and its transactions' receipts from the node:
            {"version":"2.0.0","id":ID,"chainId":"0x…","status":N,"atomic":true|false,"receipts":[…]}, status 100
            (pending), 200 (confirmed), 400 (nothing reached the chain), 500 (reverted) or 600 (partially
            reverted). An unknown ID exits 65 (EIP-5792's 5730 in the message).
            """,
        synopsis: "--rpc-url URL [--journal FILE] ID",
        flags: [ActionCommands.rpcURLFlag, TransactionSafetyOptions.journalFlag],
        positionals: [.positional("ID", help: "the batch id calls send printed")],
        run: runStatus)

    /// Sends the batch and prints its id.
    static func runSend(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        try SigningKeyOptions.checkPresent(options)
        let url = try ActionCommands.nodeURL(
            try options.required(ActionCommands.rpcURLFlag.name, "(the node that fills and broadcasts the calls)"))
        let text = try InputSource(positional: options.positional(0)).readText(io: context.io)
        let json: JSONValue
        do { json = try JSONValue(parsing: text) } catch { throw .invalidInput("FILE: \(error)") }
        let request: CallBatchRequest
        do { request = try CallBatchRequest(json: json) } catch { throw .invalidInput(message(error)) }
        let delegates = try AuthCommands.policy(options)
        let policies =
            try TransactionSafetyOptions.policies(options)
            + PreviewOptions.policies(options).filter { !($0 is AllowedDelegates) }
            + (delegates.delegates.isEmpty ? [] : [delegates])
        var configuration = DispatchConfiguration()
        configuration.previewer = try PreviewOptions.previewer(options)
        configuration.journal = try TransactionSafetyOptions.journal(options, io: context.io)
        let signer = try await loadSigningBackend(options, io: context.io)
        guard signer.address == request.from else {
            throw .invalidInput(
                "from: \(request.from.checksummed) is not the signing key's address \(signer.address.checksummed)")
        }
        let node = try await checkedNode(url, chain: request.chain)
        let dispatcher = RpcDispatcher(nodes: [request.chain: node], configuration: configuration) { policies }
        do { try signer.register(in: dispatcher) } catch { throw .invalidInput("\(error)") }
        let batch: CallBatchRecord
        do { batch = try await dispatcher.sendCalls(request) } catch {
            if case .dispatch(let failure) = error {
                throw CommandFailure.invalidInput(message(error)).noting(
                    TransactionSafetyOptions.broadcastNotes(failure))
            }
            throw .invalidInput(message(error))
        }
        context.printLine(batch.id)
        return .success
    }

    /// Prints the batch's status object.
    static func runStatus(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        let url = try ActionCommands.nodeURL(
            try options.required(ActionCommands.rpcURLFlag.name, "(the node of the batch's chain)"))
        guard let id = options.positional(0), !id.isEmpty else { throw context.usageError("missing ID") }
        let journal = try TransactionSafetyOptions.journal(options, io: context.io)
        let recorded: CallBatchRecord?
        do { recorded = try await journal.callBatch(id: id) } catch { throw .invalidInput("--journal: \(error)") }
        guard let batch = recorded else { throw .invalidInput(message(.unknownBatch(id))) }
        let node = try await checkedNode(url, chain: batch.chain)
        var configuration = DispatchConfiguration()
        configuration.journal = journal
        let dispatcher = RpcDispatcher(nodes: [batch.chain: node], configuration: configuration)
        do {
            context.printLine(try await dispatcher.callsStatus(id: id).json(id: id).serialized)
        } catch {
            throw .invalidInput(message(error))
        }
        return .success
    }

    /// A batch error's line, with its EIP-5792 code when it has one.
    static func message(_ error: CallBatchError) -> String {
        (5700..<5800).contains(error.code) ? "\(error.description) (EIP-5792 code \(error.code))" : error.description
    }

    /// The node at `url` after checking that its `eth_chainId` is `chain`.
    static func checkedNode(_ url: URL, chain: ChainID) async throws(CommandFailure) -> JSONRPCClient {
        let client = JSONRPCClient(url: url)
        let nodeChain: UInt256
        do { nodeChain = try await client.chainId() } catch { throw .invalidInput("--rpc-url: \(error)") }
        guard nodeChain == chain.eip155ChainID else {
            throw .invalidInput(
                "chainId: the node at --rpc-url reports chain id \(nodeChain.decimalString), not \(chain)")
        }
        return client
    }
}
