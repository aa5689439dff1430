import EIP712
import EthereumPrimitives
import EthereumTransactions
import Secp256k1
import SignerKit
import SoftwareSigner
import Synchronization
import Testing

/// CAIP-2 chains used by the tests.
enum TestChains {
    static let mainnet = ChainID(eip155: 1)
    static let base = ChainID(eip155: 8453)
    static let optimism = ChainID(eip155: 10)
    static let roninSaigon = ChainID(eip155: 2021)
}

/// EIP-712's own example ("Mail"), whose digest on chain 1 is published in the EIP.
enum MailExample {
    /// The digest of the example with `chainId` 1 (from EIP-712).
    static let digestOnChain1 = "0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2"

    /// The typed data, with `chainIdJSON` as the literal JSON of `domain.chainId` (`1`, `"1"`, `"0x1"`…);
    /// `nil` leaves `chainId` out of the domain (and out of the `EIP712Domain` type).
    static func json(chainIdJSON: String? = "1", contents: String = "Hello, Bob!") -> String {
        let chainType = chainIdJSON == nil ? "" : #"{"name":"chainId","type":"uint256"},"#
        let chainMember = chainIdJSON.map { #""chainId":\#($0),"# } ?? ""
        return #"""
            {"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"version","type":"string"},\#(chainType){"name":"verifyingContract","type":"address"}],"Person":[{"name":"name","type":"string"},{"name":"wallet","type":"address"}],"Mail":[{"name":"from","type":"Person"},{"name":"to","type":"Person"},{"name":"contents","type":"string"}]},"primaryType":"Mail","domain":{"name":"Ether Mail","version":"1",\#(chainMember)"verifyingContract":"0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},"message":{"from":{"name":"Cow","wallet":"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},"to":{"name":"Bob","wallet":"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},"contents":"\#(contents)"}}
            """#
    }

    /// The digest SignerKit's EIP-712 module computes for the same text (independent of the dispatcher).
    static func digest(chainIdJSON: String? = "1", contents: String = "Hello, Bob!") throws -> Digest32 {
        try TypedData(jsonText: json(chainIdJSON: chainIdJSON, contents: contents)).digest()
    }
}

/// JSON text of a string (quoted and escaped).
func jsonString(_ text: String) -> String { JSONValue.string(text).serialized }

/// Action builders.
enum Actions {
    /// `eth_signTypedData_v4` with the typed data inline as an object: `[address, {…}]`.
    static func typedData(
        _ account: Address, chain: ChainID = TestChains.mainnet, chainIdJSON: String? = "1",
        contents: String = "Hello, Bob!"
    ) -> WalletRpcAction {
        WalletRpcAction(
            chainId: chain, method: .signTypedDataV4,
            params:
                "[\(jsonString(account.checksummed)),\(MailExample.json(chainIdJSON: chainIdJSON, contents: contents))]"
        )
    }

    /// `eth_signTypedData_v4` with the typed data as a JSON string: `[address, "{…}"]` (what most dapps send).
    static func typedDataAsString(_ account: Address, chain: ChainID = TestChains.mainnet, chainIdJSON: String? = "1")
        -> WalletRpcAction
    {
        WalletRpcAction(
            chainId: chain, method: .signTypedDataV4,
            params: "[\(jsonString(account.lowercased)),\(jsonString(MailExample.json(chainIdJSON: chainIdJSON)))]")
    }

    /// `personal_sign` with `[message, address]`.
    static func personal(_ message: String, _ account: Address, chain: ChainID = TestChains.base) -> WalletRpcAction {
        WalletRpcAction(
            chainId: chain, method: .personalSign, params: "[\(jsonString(message)),\(jsonString(account.lowercased))]")
    }

    /// A complete legacy transaction object (nothing for a node to fill).
    static func legacyTransactionJSON(
        from: Address, to: Address = recipient, value: String = "0x2386f26fc10000", nonce: String = "0x7",
        chainId: String? = nil
    ) -> String {
        let chainMember = chainId.map { #","chainId":"\#($0)""# } ?? ""
        return
            #"{"from":"\#(from.lowercased)","to":"\#(to.lowercased)","value":"\#(value)","nonce":"\#(nonce)","gas":"0x5208","gasPrice":"0x3b9aca00"\#(chainMember)}"#
    }

    /// `eth_signTransaction` with `[tx]` (or the bare object when `bare`).
    static func signTransaction(_ json: String, chain: ChainID = TestChains.base, bare: Bool = false) -> WalletRpcAction
    {
        WalletRpcAction(chainId: chain, method: .signTransaction, params: bare ? json : "[\(json)]")
    }

    /// A recipient nobody controls in these tests.
    static let recipient: Address = {
        do { return try Address("0x000000000000000000000000000000000000dEaD") } catch { fatalError("\(error)") }
    }()
}

/// Checks that a `0x` r‖s‖v result with v = 27/28 recovers to `signer` over `digest`.
func expectSignature(
    _ result: String, by signer: Address, over digest: Digest32, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let bytes = try Hex.decode(result)
    #expect(bytes.count == 65, "signature length", sourceLocation: sourceLocation)
    #expect(
        bytes.last == 27 || bytes.last == 28, "v must be 27 or 28, got \(bytes.last ?? 0)",
        sourceLocation: sourceLocation)
    let signature = try RecoverableSignature(rsv: bytes)
    #expect(signature.isLowS, sourceLocation: sourceLocation)
    #expect(
        try ECDSA.recoverAddress(prehash: digest, signature: signature) == signer, sourceLocation: sourceLocation)
}

/// The digest the dispatcher must sign for a `personal_sign` message parameter, computed by hand:
/// keccak256("\x19Ethereum Signed Message:\n" + len + bytes).
func personalDigest(bytes: [UInt8]) -> Digest32 {
    Keccak256.hash(Array("\u{19}Ethereum Signed Message:\n\(bytes.count)".utf8) + bytes)
}

// MARK: - Test backends

/// Counts calls; shared by a backend and the test that inspects it.
final class CallCounter: Sendable {
    private let count = Mutex(0)
    private let seen = Mutex<[Int]>([])

    func record(_ index: Int) {
        count.withLock { $0 += 1 }
        seen.withLock { $0.append(index) }
    }

    var calls: Int { count.withLock { $0 } }
    var indices: [Int] { seen.withLock { $0 } }
}

/// A whole-method backend that signs messages and typed data itself with a secp256k1 key, after a
/// random number of scheduling turns (later indices tend to take fewer, so completion order differs from
/// action order).
struct DelayedKeyBackend: WalletRpcSigner {
    let key: PrivateKey
    let counter: CallCounter
    let maximumTurns: Int
    var name: String { "DelayedKeyBackend" }
    var accounts: [Address] { [key.address] }
    var methods: Set<RpcMethod> { [.personalSign, .signTypedDataV4] }

    init(key: PrivateKey, counter: CallCounter = CallCounter(), maximumTurns: Int = 40) {
        self.key = key
        self.counter = counter
        self.maximumTurns = maximumTurns
    }

    func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        counter.record(request.index)
        // Finishes after a random number of scheduling turns (fewer for later actions), so results arrive out
        // of order without a clock.
        let ceiling = max(1, maximumTurns - request.index * 3)
        for _ in 0..<Int.random(in: 0...ceiling) { await Task.yield() }
        switch request.payload {
        case .personalMessage(_, let digest): return .signature(key.sign(prehash: digest))
        case .typedData(_, let hashes): return .signature(key.sign(prehash: hashes.digest))
        case .transaction, .sponsorship: throw .unsupportedMethod(request.method.rawValue)
        }
    }
}

/// Counts calls and signs with its key; used to prove that nothing reached a backend.
struct CountingBackend: WalletRpcSigner {
    let key: PrivateKey
    let counter: CallCounter
    var accounts: [Address] { [key.address] }
    var methods: Set<RpcMethod> { RpcMethod.accountMethods }

    func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        counter.record(request.index)
        switch request.payload {
        case .personalMessage(_, let digest): return .signature(key.sign(prehash: digest))
        case .typedData(_, let hashes): return .signature(key.sign(prehash: hashes.digest))
        case .transaction, .sponsorship: throw .unsupportedMethod(request.method.rawValue)
        }
    }
}

/// Declines everything, as a user pressing "Reject" would.
struct RejectingBackend: WalletRpcSigner {
    let account: Address
    let counter: CallCounter
    var name: String { "RejectingBackend" }
    var accounts: [Address] { [account] }
    var methods: Set<RpcMethod> { RpcMethod.accountMethods }

    func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        counter.record(request.index)
        await Task.yield()
        throw .rejected("user declined action \(request.index)")
    }
}

/// A backend with an explicit claim, for registration tests; never signs.
struct ClaimOnlyBackend: WalletRpcSigner {
    let name: String
    let accounts: [Address]
    let methods: Set<RpcMethod>
    let chains: Set<ChainID>?

    func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        throw .backendFailure("\(name) does not sign")
    }
}

/// Wraps a key backend but claims another account: a mis-wired setup that the key backend must refuse.
struct MiswiredBackend: WalletRpcSigner {
    let claimed: Address
    let inner: PrehashBackend
    var name: String { "MiswiredBackend" }
    var accounts: [Address] { [claimed] }
    var methods: Set<RpcMethod> { inner.methods }

    func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        try await inner.handle(request)
    }
}
