import EthereumPrimitives
import EthereumTransactions
import Foundation
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Synchronization
import Testing
import WalletConnectPay
import WalletConnectPayTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Retries as in production, but with millisecond delays so tests stay fast.
let fastRetry = PayRetryPolicy(
    maxRetries: 5, baseDelay: .milliseconds(5), maxDelay: .milliseconds(10), retryAfterCap: .milliseconds(400),
    jitter: 0.25)

/// A local Pay service with fast polling.
func startService(
    processingTime: Duration = .milliseconds(150), pollInMs: Int64 = 30, node: (any EthereumNode)? = nil,
    requiredApiKey: String? = nil, sanctioned: Set<Address> = [], quoteLifetime: Duration = .seconds(300)
) throws -> LocalPayService {
    try LocalPayService(
        configuration: LocalPayService.Configuration(
            node: node, pollInMs: pollInMs, processingTime: processingTime, quoteLifetime: quoteLifetime,
            requiredApiKey: requiredApiKey, sanctionedAddresses: sanctioned))
}

/// A client of `service`, waiting on `clock`.
func makeClient(
    _ service: LocalPayService, retry: PayRetryPolicy = fastRetry,
    authentication: PayAuthentication = .appId("test-app", clientId: "test-client"),
    connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(30),
    clock: any SignerClock = SystemClock()
) -> PayClient {
    PayClient(
        configuration: PayClientConfiguration(
            baseURL: service.baseURL, authentication: authentication, retry: retry, connectTimeout: connectTimeout,
            requestTimeout: requestTimeout),
        clock: clock)
}

/// A fresh software key registered in a fresh dispatcher (with `nodes` for eth_sendTransaction).
func makeWallet(nodes: [ChainID: any EthereumNode] = [:]) throws -> (SoftwareKeySigner, RpcDispatcher) {
    let key = SoftwareKeySigner.generate()
    let dispatcher = RpcDispatcher(nodes: nodes)
    try dispatcher.register(key)
    return (key, dispatcher)
}

/// Base mainnet.
let base = ChainID(eip155: 8453)

/// The key's account on Base.
func baseAccount(_ key: some PrehashSigner) -> AccountID { AccountID(chainID: base, address: key.address) }

/// The id of the option of `kind` in an options answer.
func optionId(_ kind: LocalPayService.OptionKind, in answer: PaymentOptionsResponse) throws -> String {
    try #require(answer.options.first { $0.id.hasPrefix("opt_\(kind.rawValue)_") }).id
}

/// Runs `body` and returns the ``PayError`` it throws (an issue when it succeeds).
func payError<T>(_ body: () async throws(PayError) -> T, sourceLocation: SourceLocation = #_sourceLocation) async
    -> PayError?
{
    do {
        _ = try await body()
        Issue.record("expected a PayError", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Collects flow steps from a `@Sendable` callback.
final class StepLog: Sendable {
    private let steps = Mutex<[PayFlow.Step]>([])
    func append(_ step: PayFlow.Step) { steps.withLock { $0.append(step) } }
    var all: [PayFlow.Step] { steps.withLock { $0 } }
}

/// Collects status answers from a `@Sendable` callback.
final class StatusLog: Sendable {
    private let statuses = Mutex<[PaymentStatusResponse]>([])
    func append(_ status: PaymentStatusResponse) { statuses.withLock { $0.append(status) } }
    var all: [PaymentStatusResponse] { statuses.withLock { $0 } }
}

/// A raw HTTP exchange (for requests the client would refuse to send).
func rawRequest(_ method: String, _ url: URL, body: String? = nil, contentType: String = "application/json")
    async throws
    -> (status: Int, body: String)
{
    var request = URLRequest(url: url, timeoutInterval: 30)  // a hang bound (URLSession's default is 60 s)
    request.httpMethod = method
    if let body {
        request.httpBody = Data(body.utf8)
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
    }
    let (data, response) = try await URLSession.shared.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}

/// An in-memory Ethereum node that accepts any transaction and "mines" it at once: enough for a wallet to
/// fill, sign, "broadcast" and follow to its receipt (the hash it returns is keccak256 of the raw
/// transaction, as a real node's; the receipt's sender is recovered from the signature).
final class StubNode: EthereumNode {
    private let sent = Mutex<[[UInt8]]>([])

    /// Raw transactions received.
    var transactions: [[UInt8]] { sent.withLock { $0 } }

    func call(method: String, params: [JSONValue]) async throws(NodeError) -> JSONValue {
        switch method {
        case "eth_chainId": return .string("0x2105")
        case "eth_getBlockByNumber": return .object(JSONObject(["baseFeePerGas": .string("0x3b9aca00")]))
        case "eth_maxPriorityFeePerGas", "eth_gasPrice": return .string("0x3b9aca00")
        case "eth_getTransactionCount": return .string(UInt256(UInt64(transactions.count)).hexQuantity)
        case "eth_estimateGas": return .string("0xea60")
        case "eth_sendRawTransaction":
            guard let text = params.first?.stringValue, let raw = try? Hex.decode(text) else {
                throw .rpc(code: -32602, message: "invalid params", method: method)
            }
            sent.withLock { $0.append(raw) }
            return .string(Keccak256.hash(raw).hex)
        case "eth_getTransactionReceipt", "eth_getTransactionByHash":
            guard let text = params.first?.stringValue, let hash = try? Bytes32(hex: text) else {
                throw .rpc(code: -32602, message: "invalid params", method: method)
            }
            let known = transactions.enumerated().first { Keccak256.hash($0.element) == hash }
            guard let (position, raw) = known, let signed = try? SignedTransaction.decode(raw: raw),
                let sender = try? signed.recoverSender()
            else { return .null }
            var object = JSONObject([
                "transactionHash": .string(hash.hex), "hash": .string(hash.hex), "status": .string("0x1"),
                "blockNumber": .string(UInt256(UInt64(position + 1)).hexQuantity),
                "blockHash": .string(Keccak256.hash(Array("block \(position)".utf8)).hex),
                "from": .string(sender.lowercased), "gasUsed": .string("0x5208"),
            ])
            if let to = signed.transaction.to { object["to"] = .string(to.lowercased) }
            return .object(object)
        default:
            throw .rpc(code: -32601, message: "method not found", method: method)
        }
    }
}

/// A backend that claims an account but signs with another key (to get a signature the service refuses).
struct ImpostorBackend: WalletRpcSigner {
    let claimed: Address
    let actual: SoftwareKeySigner

    var accounts: [Address] { [claimed] }
    var methods: Set<RpcMethod> { [.signTypedDataV4, .personalSign] }

    func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        switch request.payload {
        case .typedData(_, let hashes): return .signature(try await actual.sign(prehash: hashes.digest))
        case .personalMessage(_, let digest): return .signature(try await actual.sign(prehash: digest))
        case .transaction, .sponsorship: throw .unsupportedMethod(request.method.rawValue)
        }
    }
}
