import EthereumPrimitives
import EthereumTransactions

/// Turns any ``PrehashSigner`` into a whole-method backend: SignerKit does all Ethereum encoding and
/// hashing, the key only signs 32-byte digests. Registered by ``RpcDispatcher/register(_:chains:methods:)``.
public struct PrehashBackend: WalletRpcSigner {
    /// The key.
    public let key: any PrehashSigner
    /// Chains it signs on (`nil`: every eip155 chain).
    public let chains: Set<ChainID>?
    /// Methods it handles.
    public let methods: Set<RpcMethod>
    /// How long `eth_sendTransaction` waits for a receipt; `nil` returns right after broadcast.
    public let receiptTimeout: Duration?

    /// Wraps `key`.
    public init(
        _ key: any PrehashSigner, chains: Set<ChainID>? = nil, methods: Set<RpcMethod> = Set(RpcMethod.allCases),
        receiptTimeout: Duration? = nil
    ) {
        self.key = key
        self.chains = chains
        self.methods = methods
        self.receiptTimeout = receiptTimeout
    }

    /// The key's address.
    public var accounts: [Address] { [key.address] }

    /// `PrehashBackend(<key type>)`.
    public var name: String { "PrehashBackend(\(type(of: key)))" }

    /// Signs (and for `eth_sendTransaction` broadcasts) one request.
    public func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        guard request.account == key.address else {
            throw .invalidRequest("account \(request.account) is not this key's address \(key.address)")
        }
        switch request.payload {
        case .personalMessage(_, let digest):
            return .signature(try await key.sign(prehash: digest))
        case .typedData(_, let hashes):
            return .signature(try await key.sign(prehash: hashes.digest))
        case .transaction(let transactionRequest, let feesOpen):
            let filled = try await TransactionFiller.fill(
                transactionRequest, feesOpen: feesOpen, from: request.account, node: request.node)
            let transaction: Transaction
            do { transaction = try filled.complete(chainId: request.chainId) } catch {
                throw .invalidRequest("transaction: \(error)")
            }
            let signed = try await key.signTransaction(transaction)
            guard request.method == .sendTransaction else { return .rawTransaction(signed.rawTransaction) }
            guard let node = request.node else { throw .invalidRequest("eth_sendTransaction needs a node for \(request.action.chainId)") }
            let hash: Bytes32
            do { hash = try await node.sendRawTransaction(signed.rawTransaction) } catch {
                throw .backendFailure("\(error)")
            }
            guard hash == signed.hash else {
                throw .verificationFailed("node returned hash \(hash), signed transaction hash is \(signed.hash)")
            }
            if let receiptTimeout {
                do { _ = try await node.waitForReceipt(hash, timeout: receiptTimeout, pollInterval: .milliseconds(200)) } catch {
                    throw .backendFailure("\(error)")
                }
            }
            return .transactionHash(hash)
        }
    }
}
