import EthereumPrimitives
import EthereumRPC
import Foundation
import Secp256k1
import SignerKit

/// The dispatcher behind Ethereum JSON-RPC: who may call, what each method does, and the answers.
///
/// Transport-free (``ServiceHTTPHandler`` puts it on HTTP): a body in, a body out. Signing methods become
/// wallet RPC actions and go through one ``RpcDispatcher``, so every answer has the `SignedActions`
/// guarantees (verified, ordered, all or nothing) and the configured policies.
public final class SignerService: Sendable {
    /// The configuration it runs.
    public let configuration: ServiceConfiguration
    /// The accounts it signs for, in configuration order.
    public let accounts: [Address]
    let dispatcher: RpcDispatcher
    let upstream: [ChainID: JSONRPCClient]

    /// A service signing with `signers` (one per configured key, in order), filling and broadcasting
    /// through `upstream` clients, under `policies`.
    ///
    /// - Throws: ``ServiceConfigurationError`` when two keys have one address.
    public init(
        configuration: ServiceConfiguration, signers: [any PrehashSigner], upstream: [ChainID: JSONRPCClient],
        policies: [any ActionPolicy] = [], previewer: SigningPreviewer = SigningPreviewer()
    ) throws(ServiceConfigurationError) {
        self.configuration = configuration
        self.upstream = upstream
        var dispatchConfiguration = DispatchConfiguration()
        dispatchConfiguration.previewer = previewer
        var nodes: [ChainID: any EthereumNode] = [:]
        for (chain, client) in upstream { nodes[chain] = client }
        dispatcher = RpcDispatcher(nodes: nodes, configuration: dispatchConfiguration) { policies }
        var accounts: [Address] = []
        for (index, signer) in signers.enumerated() {
            do { try dispatcher.register(signer) } catch {
                throw ServiceConfigurationError(path: "keys[\(index)]", problem: "\(error)")
            }
            accounts.append(signer.address)
        }
        self.accounts = accounts
    }

    /// The client whose token this is (`Authorization: Bearer <token>`), compared by SHA-256 in constant time.
    public func client(bearerToken token: String) -> ServiceClient? {
        let digest = SHA256.hash(Array(token.utf8))
        var found: ServiceClient?
        for client in configuration.clients {
            var difference: UInt8 = 0
            for (a, b) in zip(digest, client.tokenSHA256) { difference |= a ^ b }
            if difference == 0, client.tokenSHA256.count == digest.count { found = client }
        }
        return found
    }

    /// The answer to a JSON-RPC body from `client`: one object, a batch array, or `nil` when the body held
    /// only notifications.
    public func answer(body: [UInt8], client: ServiceClient) async -> [UInt8]? {
        let value: JSONValue
        do { value = try JSONValue(parsing: body) } catch {
            return Array(ServiceCall.answer(id: nil, result: .failure(.parseError("\(error)"))).serialized.utf8)
        }
        switch value {
        case .array(let calls):
            guard !calls.isEmpty else {
                return Array(
                    ServiceCall.answer(id: nil, result: .failure(.invalidRequest("empty batch"))).serialized.utf8)
            }
            guard calls.count <= configuration.limits.maxBatchSize else {
                let error = JSONRPCError.batchTooLarge(configuration.limits.maxBatchSize)
                return Array(ServiceCall.answer(id: nil, result: .failure(error)).serialized.utf8)
            }
            var answers: [JSONValue] = []
            for call in calls {
                if let answer = await answer(call, client: client) { answers.append(answer) }
            }
            return answers.isEmpty ? nil : Array(JSONValue.array(answers).serialized.utf8)
        default:
            return await answer(value, client: client).map { Array($0.serialized.utf8) }
        }
    }

    /// One call's answer object (`nil` for a notification).
    func answer(_ value: JSONValue, client: ServiceClient) async -> JSONValue? {
        switch ServiceCall.read(value) {
        case .failure(let error):
            return ServiceCall.answer(id: value["id"], result: .failure(error))
        case .success(let call):
            let result = await perform(call, client: client)
            guard call.id != nil else { return nil }
            return ServiceCall.answer(id: call.id, result: result)
        }
    }
}
