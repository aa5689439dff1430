import EthereumPrimitives
import SignerKit

/// A call of a request sent with an `Idempotency-Key`: the journal recognises its transactions by the client,
/// the key and the call's position in the body.
struct RequestKey: Sendable {
    let client: String
    let key: String
    let call: Int

    /// What the dispatcher journals the call's transactions under.
    var journalKey: String { IdempotencyNames.scoped("header", client: client, key: key) + "#\(call)" }
}

/// A `signerkit_signActions` call with an `idempotencyKey`: stored under the client and the key, bound to
/// the exact actions.
struct ActionsKey: Sendable {
    let client: String
    let key: String
    /// Keccak-256 of the actions (chain, method and params of each, length-prefixed).
    let requestHash: Bytes32

    init(client: String, key: String, actions: [WalletRpcAction]) {
        self.client = client
        self.key = key
        requestHash = ActionIdentity.digest(of: actions.flatMap { [$0.chainId.description, $0.method, $0.params] })
    }

    /// The key in the idempotency store (apart from header keys, which share the store).
    var storeKey: String { "actions:" + key }
    /// What the dispatcher journals the actions' transactions under.
    var journalKey: String { IdempotencyNames.scoped("actions", client: client, key: key) }
}

/// Names derived from idempotency keys: one client's key never names another client's entries.
enum IdempotencyNames {
    /// `kind:` and the length-prefixed client and key.
    static func scoped(_ kind: String, client: String, key: String) -> String {
        "\(kind):\(client.utf8.count):\(client)\(key.utf8.count):\(key)"
    }

    /// A journal key for one call sent without an idempotency key: 128 random bits, never another call's.
    static func uniqueCall() -> String {
        var generator = SystemRandomNumberGenerator()
        return "call:" + Hex.encode((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}

extension SignerService {
    /// How long a claim on an idempotency key lasts: longer than any request may run (by default three request
    /// timeouts and a minute), so a retry never runs beside a live first attempt; a claim whose instance died
    /// lapses after it.
    var idempotencyLease: Duration { configuration.limits.effectiveIdempotencyLease }

    /// Runs `body` once per `key`: a retry with the same actions gets the stored answer, one while the first
    /// runs is told to wait, one with other actions is refused. Only a success is stored; after a failure the
    /// key is free again (the journal then re-sends, never re-signs, what the first attempt broadcast).
    func once(
        _ key: ActionsKey, client: ServiceClient, record: inout CallRecord,
        _ body: (inout CallRecord) async -> Result<JSONValue, JSONRPCError>
    ) async -> Result<JSONValue, JSONRPCError> {
        guard let store = idempotency else { return await body(&record) }
        let claim: IdempotencyClaim
        do {
            claim = try await store.claim(
                client: client.name, key: key.storeKey, requestHash: key.requestHash, lease: idempotencyLease)
        } catch {
            return .failure(.idempotencyStore(error.description))
        }
        switch claim {
        case .answered(let answer):
            record.replayed = true
            guard let value = try? JSONValue(parsing: answer) else {
                return .failure(.idempotencyStore("the stored answer of this idempotencyKey does not parse"))
            }
            return .success(value)
        case .inProgress:
            return .failure(.idempotencyInProgress("idempotencyKey"))
        case .mismatch:
            return .failure(.invalidParams("idempotencyKey was used before with other actions"))
        case .claimed:
            let result = await body(&record)
            do {
                switch result {
                case .success(let value):
                    try await store.complete(
                        client: client.name, key: key.storeKey, answer: Array(value.serialized.utf8))
                case .failure:
                    try await store.release(client: client.name, key: key.storeKey)
                }
            } catch {
                // The work is done and its answer goes out; a retry finds the journal's entries (or a lapsed
                // claim) instead of the stored answer.
                record.idempotencyProblem = error.description
            }
            return result
        }
    }
}
