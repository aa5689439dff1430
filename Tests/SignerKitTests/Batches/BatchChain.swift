import EthereumPrimitives
import EthereumRPC
import EthereumTransactions
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// A local EVM with SignerKit's ERC-7821 executor and a test ERC-20 deployed, and a dispatcher holding two
/// funded keys that each hold 1000 tokens: `account` (the EOA that delegates and batches) and `other` (which
/// sends the same calls as separate transactions, for comparison).
struct BatchChain {
    let evm: LocalEVM
    let client: JSONRPCClient
    let chain: ChainID
    let dispatcher: RpcDispatcher
    let account: SoftwareKeySigner
    let other: SoftwareKeySigner
    let executor: BatchExecutorDeployment
    let token: Address

    static let supply = UInt256(1000)

    static func start() async throws -> BatchChain {
        let deployer = try TestKeys.signer(TestKeys.alphaHex)
        let account = SoftwareKeySigner.generate()
        let other = SoftwareKeySigner.generate()
        let evm = try await LocalEVM.start(fund: [deployer.address, account.address, other.address])
        let client = JSONRPCClient(url: evm.url)
        let chain = try ChainID(eip155ChainID: try await client.chainId())
        let executor = try await BatchExecutorDeployment.deploy(on: evm, deployerKeyHex: TestKeys.alphaHex)
        let holders = JSONValue.array([.string(account.address.checksummed), .string(other.address.checksummed)])
        let (token, _) = try await TestContracts.deploy(
            "TestToken", on: evm, deployerKeyHex: TestKeys.alphaHex,
            arguments: [holders, .number(supply.decimalString)])
        let dispatcher = RpcDispatcher(nodes: [chain: client])
        try dispatcher.register(account)
        try dispatcher.register(other)
        return BatchChain(
            evm: evm, client: client, chain: chain, dispatcher: dispatcher, account: account, other: other,
            executor: executor, token: token)
    }

    /// `approve(spender, amount)` calldata.
    static func approve(_ spender: Address, _ amount: UInt256) -> [UInt8] {
        ERC20Calldata.approveSelector + spender.word.bytes + amount.word.bytes
    }

    /// `transfer(to, amount)` calldata.
    static func transfer(_ to: Address, _ amount: UInt256) -> [UInt8] {
        ERC20Calldata.transferSelector + to.word.bytes + amount.word.bytes
    }

    /// An authorization by `account` delegating to the executor, for a transaction `account` sends itself
    /// (the sender's nonce is incremented before the tuple is applied: the tuple names nonce + 1).
    func selfAuthorization() async throws -> SignedAuthorization {
        let chainId = try #require(chain.eip155ChainID)
        let nonce = try #require(try await client.transactionCount(of: account.address, block: .pending).uint64)
        return try await account.signAuthorization(
            Authorization(chainId: chainId, address: executor.address, nonce: nonce + 1),
            policy: AllowedDelegates([executor.address]))
    }

    /// `eth_sendTransaction` through the dispatcher from `from` to `to` with `data` (and the tuples, making it
    /// type 0x4; `gas` fixed when given, else estimated); the mined receipt, also when it reverted (which the
    /// dispatcher reports as `DispatchError.Kind.transactionReverted`).
    func send(
        from: SoftwareKeySigner, to: Address, data: [UInt8], authorizations: [SignedAuthorization] = [],
        gas: UInt64? = nil
    ) async throws -> JSONObject {
        var fields = #""from":"\#(from.address.lowercased)","to":"\#(to.lowercased)","data":"\#(Hex.encode(data))""#
        if !authorizations.isEmpty {
            fields += #","authorizationList":\#(JSONValue.array(authorizations.map(\.json)).serialized)"#
        }
        if let gas { fields += #","gas":"0x\#(String(gas, radix: 16))""# }
        let hash: Bytes32
        do {
            let signed = try await dispatcher.sign(actions: [
                WalletRpcAction(chainId: chain, method: .sendTransaction, params: "[{\(fields)}]")
            ])
            guard case .transactionHash(let mined) = try #require(signed.outcomes.first) else {
                throw LocalEVMError(description: "expected a transaction hash, got \(signed.outcomes)")
            }
            hash = mined
        } catch let error as DispatchError {
            // A mined transaction that reverted: the dispatcher says so; its receipt tells the rest.
            guard case .transactionReverted(let reverted) = error.kind else { throw error }
            hash = reverted
        }
        return try #require(try await evm.call("eth_getTransactionReceipt", [.string(hash.hex)]).objectValue)
    }

    /// The receipt's `gasUsed`.
    static func gasUsed(_ receipt: JSONObject) throws -> UInt256 {
        try UInt256(text: try #require(receipt["gasUsed"]?.stringValue))
    }

    /// A `uint256` view of the token by `eth_call` (`balanceOf(a)` or `allowance(a, b)`).
    func read(_ signature: String, _ addresses: Address...) async throws -> UInt256 {
        let data = ERC20Calldata.selector(signature) + addresses.flatMap(\.word.bytes)
        let call = JSONValue.object(
            JSONObject(["to": .string(token.lowercased), "data": .string(Hex.encode(data))]))
        let answer = try #require(try await evm.call("eth_call", [call, .string("latest")]).stringValue)
        return try UInt256(text: answer)
    }

    func balance(_ holder: Address) async throws -> UInt256 { try await read("balanceOf(address)", holder) }

    func allowance(_ owner: Address, _ spender: Address) async throws -> UInt256 {
        try await read("allowance(address,address)", owner, spender)
    }

    /// The account's code: `0xef0100 ‖ delegate` once delegated.
    func code(_ address: Address) async throws -> String? {
        try await evm.call("eth_getCode", [.string(address.lowercased), .string("latest")]).stringValue
    }
}
