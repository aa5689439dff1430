import EthereumPrimitives
import SignerKit

/// A hosted Ronin Waypoint wallet as a dispatcher backend: `eth_signTypedData_v4`, `personal_sign`
/// and `eth_sendTransaction` for the authorized address(es), on Ronin mainnet and Saigon unless
/// configured otherwise.
///
/// ```swift
/// let session = WaypointSession(clientId: "my-client", transport: try LoopbackTransport(opener: .systemBrowser))
/// let signer = try await WaypointSigner.authorize(session: session)
/// let dispatcher = RpcDispatcher()
/// try dispatcher.register(softwareKey)   // one action list can mix backends
/// try dispatcher.register(signer)
/// let signed = try await dispatcher.sign(actions: actions)   // results in action order
/// ```
///
/// Every request names the signing account as `expectAddress`. Results are read here and verified
/// by the dispatcher, once, like every backend's: a signature must be low-s and recover to the account
/// over the digest SignerKit computed from the resolved request (never a digest the wallet reports),
/// and a transaction hash must be 32 bytes. The hosted wallet picks nonce, gas and fees for transactions itself; a request's own
/// values for those are not forwarded. `personal_sign` messages must be UTF-8 text, since the hosted
/// wallet signs text only.
public struct WaypointSigner: WalletRpcSigner {
    /// The round-trip machinery.
    public let session: WaypointSession
    /// The accounts this backend signs for.
    public let accounts: [Address]
    /// The chains it signs on (`nil`: every eip155 chain).
    public let chains: Set<ChainID>?

    /// A backend for `accounts` (e.g. from an earlier ``WaypointSession/authorize(chainId:scope:)``).
    public init(session: WaypointSession, accounts: [Address], chains: Set<ChainID>? = Waypoint.roninChains) {
        self.session = session
        self.accounts = accounts
        self.chains = chains
    }

    /// A backend for the addresses of an authorization: the keyless wallet and any external account.
    public init(
        session: WaypointSession, authorization: WaypointAuthorization, chains: Set<ChainID>? = Waypoint.roninChains
    ) {
        self.init(session: session, accounts: authorization.addresses, chains: chains)
    }

    /// Signs the user in and returns a backend for the authorized addresses.
    public static func authorize(
        session: WaypointSession, chainId: UInt256 = UInt256(Waypoint.roninMainnet),
        chains: Set<ChainID>? = Waypoint.roninChains
    ) async throws(WaypointError) -> WaypointSigner {
        let authorization = try await session.authorize(chainId: chainId)
        return WaypointSigner(session: session, authorization: authorization, chains: chains)
    }

    /// `eth_signTypedData_v4`, `personal_sign`, `eth_sendTransaction`.
    public var methods: Set<RpcMethod> { [.signTypedDataV4, .personalSign, .sendTransaction] }

    /// `WaypointSigner(<origin>)`.
    public var name: String { "WaypointSigner(\(session.origin))" }

    /// Sends the request to the hosted wallet, waits for the callback and reads it (the dispatcher verifies).
    public func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        guard methods.contains(request.method) else { throw .unsupportedMethod(request.method.rawValue) }
        guard accounts.contains(request.account) else {
            throw .invalidRequest("account \(request.account) is not authorized with this hosted wallet")
        }
        do {
            return try await perform(request)
        } catch {
            throw error.signerError
        }
    }

    private func perform(_ request: ResolvedRequest) async throws(WaypointError) -> ActionResult {
        switch (request.method, request.payload) {
        case (.personalSign, .personalMessage(let bytes, _)):
            let walletRequest = try session.personalSignRequest(
                bytes: bytes, account: request.account, chainId: request.chainId)
            let signature = try await session.signature(
                for: walletRequest, verifiedAgainst: nil, account: request.account)
            return .signature(signature)
        case (.signTypedDataV4, .typedData(let typedData, _)):
            let walletRequest = try session.typedDataRequest(
                typedData, account: request.account, chainId: request.chainId)
            let signature = try await session.signature(
                for: walletRequest, verifiedAgainst: nil, account: request.account)
            return .signature(signature)
        case (.sendTransaction, .transaction(let transaction, _)):
            guard let to = transaction.to else {
                throw .invalidRequest("the hosted wallet cannot deploy contracts: transaction has no to")
            }
            // The request link carries to, value and data only: dropping the tuples would send another transaction.
            guard transaction.authorizationList.isEmpty else {
                throw .invalidRequest(
                    "the hosted wallet cannot send EIP-7702 (type 0x4) transactions: authorizationList")
            }
            // Forwarded as the upstream SDKs forward them; what the caller left out stays out (a bare
            // request infers legacy, which is not forwarded as a type).
            let inferredLegacy = transaction.type == .legacy && transaction.gasPrice == nil
            let fields = WaypointTransactionFields(
                type: inferredLegacy ? nil : transaction.type.rawValue, gas: transaction.gasLimit,
                nonce: transaction.nonce,
                gasPrice: transaction.gasPrice, maxFeePerGas: transaction.maxFeePerGas,
                maxPriorityFeePerGas: transaction.maxPriorityFeePerGas)
            let hash = try await session.sendTransaction(
                to: to, value: transaction.value, data: transaction.data, account: request.account,
                chainId: request.chainId, fields: fields)
            return .transactionHash(hash)
        default:
            throw .invalidRequest("\(request.method) is not supported by the hosted wallet")
        }
    }
}
