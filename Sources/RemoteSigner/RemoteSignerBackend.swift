import EthereumPrimitives
import EthereumTransactions
import SignerKit

/// A whole-method backend whose keys another signer service holds: web3signer's eth1 API or another
/// `signerkit serve` (``RemoteSignerKind``).
///
/// It signs `personal_sign`, `eth_signTypedData_v4` and `eth_signTransaction` by asking the remote (the
/// table on ``RemoteSignerKind`` says with which call) and returns the answer as read; the dispatcher
/// verifies it like any backend's before it may enter a bundle: a signature must be low-s and recover, over
/// the digest SignerKit computes itself, to the routed account; a raw transaction must decode strictly, match
/// the request field for field, carry the action's chain id and recover to the account. A remote that lies
/// (another key, a changed transaction, a wrong `v`) is refused there, and nothing is bundled.
///
/// `eth_sendTransaction` runs through the dispatcher's transaction pipeline (`FilledTransactionSigner`): filled
/// from the node, its nonce reserved in the journal, judged by the policies, then signed by the remote with
/// `eth_signTransaction`; the answer must be exactly the filled transaction signed by the account before it is
/// journalled and broadcast by the dispatcher. A remote is never asked to broadcast.
///
/// ```swift
/// let client = RemoteSignerClient(endpoint: try RemoteSignerEndpoint("https://signer.internal"), kind: .signerkit,
///                                 token: RemoteSignerToken(tokenFromFile))
/// let backend = try await RemoteSignerBackend.connect(client, accounts: [treasury])
/// try dispatcher.register(backend)
/// ```
public struct RemoteSignerBackend: FilledTransactionSigner, CustomStringConvertible {
    /// The methods a remote's accounts serve (`eth_sendTransaction` signed by the remote, sent by the dispatcher).
    public static let remoteMethods: Set<RpcMethod> = [
        .personalSign, .signTypedDataV4, .signTransaction, .sendTransaction,
    ]

    /// The client every call goes through.
    public let client: RemoteSignerClient
    /// The accounts this backend signs for (each one the remote listed).
    public let accounts: [Address]
    /// ``remoteMethods``.
    public var methods: Set<RpcMethod> { Self.remoteMethods }
    /// `RemoteSignerBackend(<kind> at <url>)`, never the token.
    public let name: String

    private init(client: RemoteSignerClient, accounts: [Address]) {
        self.client = client
        self.accounts = accounts
        name = "RemoteSignerBackend(\(client.kind.rawValue) at \(client.endpoint))"
    }

    /// A backend for `accounts` of the remote, after one `eth_accounts` that must list each of them; for every
    /// account the remote lists when `accounts` is `nil`.
    ///
    /// - Throws: ``RemoteSignerError``: ``RemoteSignerError/accountNotHeld(_:url:)`` for an account the remote
    ///   does not list, ``RemoteSignerError/noAccounts(url:)``, and the client's errors (unreachable, 401, …).
    public static func connect(_ client: RemoteSignerClient, accounts wanted: [Address]? = nil)
        async throws(RemoteSignerError) -> RemoteSignerBackend
    {
        let held = try await client.accounts()
        guard let wanted else {
            guard !held.isEmpty else { throw .noAccounts(url: client.endpoint.description) }
            var seen = Set<Address>()
            return RemoteSignerBackend(client: client, accounts: held.filter { seen.insert($0).inserted })
        }
        let heldSet = Set(held)
        if let missing = wanted.first(where: { !heldSet.contains($0) }) {
            throw .accountNotHeld(missing, url: client.endpoint.description)
        }
        guard !wanted.isEmpty else { throw .noAccounts(url: client.endpoint.description) }
        return RemoteSignerBackend(client: client, accounts: wanted)
    }

    /// Asks the remote for the result of `request` and returns it unverified (the dispatcher verifies it).
    ///
    /// - Throws: `SignerError/underlying(_:error:)` with the ``RemoteSignerError``;
    ///   `SignerError/unsupportedMethod(_:)` for `eth_sendTransaction`; `SignerError/invalidRequest(_:)` for
    ///   an account this backend does not sign for.
    public func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        guard accounts.contains(request.account) else {
            throw .invalidRequest("account \(request.account.checksummed) is not one of \(name)'s accounts")
        }
        let call: RemoteSignerCall
        do throws(RemoteSignerCall.Refusal) { call = try RemoteSignerCall(request, kind: client.kind) } catch {
            switch error {
            case .unsupported(let method): throw .unsupportedMethod(method)
            case .invalid(let reason): throw .invalidRequest(reason)
            }
        }
        do throws(RemoteSignerError) {
            let answer = try await client.call(call.method, call.params)
            return try call.result(from: answer)
        } catch {
            throw .underlying("remote signer \(call.method)", error: error)
        }
    }

    /// Has the remote sign the filled transaction of an `eth_sendTransaction` (the dispatcher verifies the answer
    /// is exactly that transaction, signed by the account, before it journals and broadcasts it).
    ///
    /// - Throws: `SignerError/underlying(_:error:)` with the ``RemoteSignerError``; `SignerError/invalidRequest(_:)`
    ///   for an account this backend does not sign for.
    public func signFilledTransaction(_ transaction: TransactionRequest) async throws(SignerError) -> [UInt8] {
        guard let account = transaction.from, accounts.contains(account), let chainId = transaction.chainId else {
            throw .invalidRequest("the transaction's from is not one of \(name)'s accounts")
        }
        let call: RemoteSignerCall
        do throws(RemoteSignerCall.Refusal) {
            call = try RemoteSignerCall(filled: transaction, account: account, chainId: chainId, kind: client.kind)
        } catch {
            throw .invalidRequest("the filled transaction cannot be sent to the remote")
        }
        do throws(RemoteSignerError) {
            guard case .rawTransaction(let raw) = try call.result(from: try await client.call(call.method, call.params))
            else { throw .malformedAnswer(call: call.method, field: "result", reason: "not a raw transaction") }
            return raw
        } catch {
            throw .underlying("remote signer \(call.method)", error: error)
        }
    }

    /// ``name``.
    public var description: String { name }
}
