import EthereumPrimitives
import EthereumRPC
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// A running local EVM (see ``LocalEVM``), a client for it, its CAIP-2 chain, a funded software key, and a
/// dispatcher (default configuration) holding that key.
struct LocalChain {
    let evm: LocalEVM
    let client: JSONRPCClient
    let chain: ChainID
    let key: SoftwareKeySigner
    let dispatcher: RpcDispatcher

    static func start() async throws -> LocalChain {
        let key = SoftwareKeySigner.generate()
        let evm = try await LocalEVM.start(fund: [key.address])
        let client = JSONRPCClient(url: evm.url)
        let chain = try ChainID(eip155ChainID: try await client.chainId())
        let dispatcher = RpcDispatcher(nodes: [chain: client])
        try dispatcher.register(key)
        return LocalChain(evm: evm, client: client, chain: chain, key: key, dispatcher: dispatcher)
    }

    /// `eth_sendTransaction` with `fields` added to `from` (this key).
    func send(_ fields: String) -> WalletRpcAction {
        WalletRpcAction(
            chainId: chain, method: .sendTransaction, params: #"[{"from":"\#(key.address.lowercased)",\#(fields)}]"#)
    }

    /// A transfer of `wei` to a fresh address.
    func transfer(_ wei: Int = 1) -> WalletRpcAction {
        send(#""to":"\#(PrivateKey.generate().address.lowercased)","value":"0x\#(String(wei, radix: 16))""#)
    }

    /// A member of a transaction object as the node reports it, read as a quantity.
    func quantity(_ object: JSONObject, _ member: String) throws -> UInt256 {
        let text = try #require(
            object[member]?.stringValue, "\(member) missing in \(JSONValue.object(object).serialized)")
        return try UInt256(text: text)
    }

    /// How many transactions this key sent that were mined.
    func minedCount() async throws -> UInt256 {
        try await client.transactionCount(of: key.address, block: .latest)
    }

    /// Switches the node's automatic mining on or off.
    func automine(_ on: Bool) async throws { _ = try await evm.call("evm_setAutomine", [.bool(on)]) }
}
