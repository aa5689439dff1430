import EthereumPrimitives
import EthereumRPC
import Foundation
import SecureMemory
import SignerKit
import Synchronization

/// The dispatcher behind Ethereum JSON-RPC: who may call, what each method does, and the answers.
///
/// Transport-free (``ServiceHTTPHandler`` puts it on HTTP): a body in, a body out. Signing methods become
/// wallet RPC actions and go through one ``RpcDispatcher``, so every answer has the `SignedActions`
/// guarantees (verified, ordered, all or nothing) and the configured policies.
public final class SignerService: Sendable {
    /// The configuration it started with (``reload(clients:policies:)`` replaces its clients and policies).
    public let configuration: ServiceConfiguration
    /// The accounts it signs for, in configuration order.
    public let accounts: [Address]
    let upstream: [ChainID: JSONRPCClient]
    /// Where answers of requests with an idempotency key are kept (`nil`: keys only name journal entries).
    let idempotency: (any IdempotencyStore)?
    /// Where every call is recorded: before a call that may broadcast is signed (its intent), and before any
    /// answer leaves (``ServiceHTTPHandler``).
    package let audit: (any AuditTrail)?
    /// What every deadline and wait of a request reads.
    public let clock: any SignerClock
    /// Where transactions are journalled before they are broadcast (`nil`: no journal).
    let journal: (any TransactionJournal)?
    /// Calls held for approval by the policy file's `approvalRules`, until they are signed, rejected or expire.
    public let heldRequests: HeldRequests
    private let signers: [any PrehashSigner]
    /// Whole-method backends (remote signers), registered after the keys.
    private let backends: [any WalletRpcSigner]
    private let dispatchConfiguration: DispatchConfiguration
    private let current: Mutex<Current>
    /// SHA-256 of the policy file in force (``reload(clients:policies:policySet:)`` replaces it).
    private let policySetHash: Mutex<Bytes32?>
    /// The policies loaded in shadow: decided on every signing call, written in its audit record, never
    /// enforced (``reload(clients:policies:policySet:shadow:)`` replaces them).
    private let shadowJudge: Mutex<PolicyJudge?>

    /// What a reload replaces: requests already running finish with what they started with.
    private struct Current {
        var dispatcher: RpcDispatcher
        var clients: [ServiceClient]
    }

    /// A service signing with `signers` (one per configured key, in order), filling and broadcasting
    /// through `upstream` clients, under `policies`, recording every transaction in `journal` before it is
    /// broadcast, and keeping the answers of requests sent with an idempotency key in `idempotency` (both in
    /// the configured ``ServiceStore`` in `signerkit serve`). With an `audit` trail, a call that may broadcast
    /// is signed only once its intent is on the trail (no audit, no broadcast). `backends` (remote signers) sign
    /// their accounts' messages, typed data and `eth_signTransaction`, verified like the keys' results.
    ///
    /// - Throws: ``ServiceConfigurationError`` when two keys (or backends) have one address.
    public init(
        configuration: ServiceConfiguration, signers: [any PrehashSigner], backends: [any WalletRpcSigner] = [],
        upstream: [ChainID: JSONRPCClient],
        policies: [any ActionPolicy] = [], previewer: SigningPreviewer = SigningPreviewer(),
        journal: (any TransactionJournal)? = nil, idempotency: (any IdempotencyStore)? = nil,
        audit: (any AuditTrail)? = nil, heldRequestStore: (any HeldRequestStore)? = nil,
        webhook: ApprovalWebhook? = nil, clock: any SignerClock = SystemClock(),
        now: @escaping @Sendable () -> Date = { Date() }, policySet: Bytes32? = nil,
        shadowPolicies: [any ActionPolicy]? = nil
    ) throws(ServiceConfigurationError) {
        self.clock = clock
        policySetHash = Mutex(policySet)
        shadowJudge = Mutex(shadowPolicies.map { PolicyJudge(policies: $0) })
        heldRequests = HeldRequests(
            store: heldRequestStore ?? MemoryHeldRequestStore(), clock: clock, now: now,
            pollInterval: configuration.approvals.pollInterval,
            signingLease: configuration.limits.requestTimeout * 2,
            finished: { request in
                guard let webhook else { return }
                // Delivered beside the call: a slow receiver never holds up the answer.
                Task { await webhook.deliver(Self.status(of: request)) }
            })
        self.journal = journal
        self.configuration = configuration
        self.upstream = upstream
        self.idempotency = idempotency
        self.audit = audit
        self.signers = signers
        var dispatchConfiguration = DispatchConfiguration()
        dispatchConfiguration.previewer = previewer
        dispatchConfiguration.journal = journal
        dispatchConfiguration.clock = clock
        // A request's reservation is recorded or released within the request; one whose process died is free
        // again soon after.
        dispatchConfiguration.nonceReservationLease = configuration.limits.requestTimeout * 2
        self.dispatchConfiguration = dispatchConfiguration
        let backends = try backends + Self.safes(configuration.safes, signers: signers)
        self.backends = backends
        let dispatcher = try Self.dispatcher(
            signers: signers, payers: configuration.roninPayers, backends: backends, upstream: upstream,
            configuration: dispatchConfiguration, policies: policies)
        try Self.requireApprovers(for: policies, among: configuration.clients)
        accounts = signers.map(\.address) + backends.flatMap(\.accounts)
        let addresses = Set(signers.map(\.address))
        if let stray = configuration.roninPayers.first(where: { !addresses.contains($0) }) {
            throw ServiceConfigurationError(
                path: "roninPayers", problem: "\(stray.checksummed) is not the address of any configured key")
        }
        current = Mutex(Current(dispatcher: dispatcher, clients: configuration.clients))
    }

    /// The Safe backends of `safes`, their owners among `signers`.
    private static func safes(_ safes: [ServiceSafe], signers: [any PrehashSigner]) throws(ServiceConfigurationError)
        -> [any WalletRpcSigner]
    {
        var backends: [any WalletRpcSigner] = []
        for (index, safe) in safes.enumerated() {
            var owners: [any PrehashSigner] = []
            for owner in safe.owners {
                guard let key = signers.first(where: { $0.address == owner }) else {
                    throw ServiceConfigurationError(
                        path: "safes[\(index)].owners",
                        problem: "\(owner.checksummed) is not the address of any configured key")
                }
                owners.append(key)
            }
            if let submitter = safe.batchExecution?.submitter, !signers.contains(where: { $0.address == submitter }) {
                throw ServiceConfigurationError(
                    path: "safes[\(index)].submitter",
                    problem: "\(submitter.checksummed) is not the address of any configured key")
            }
            do {
                backends.append(
                    try SafeAccountSigner(
                        safe: safe.address, owners: owners, threshold: safe.threshold,
                        batchExecution: safe.batchExecution))
            } catch {
                throw ServiceConfigurationError(path: "safes[\(index)]", problem: "\(error)")
            }
        }
        return backends
    }

    /// One dispatcher with every signer and backend registered: the Ronin payers' keys for sponsoring alone,
    /// the other keys for their own accounts' methods.
    private static func dispatcher(
        signers: [any PrehashSigner], payers: Set<Address>, backends: [any WalletRpcSigner],
        upstream: [ChainID: JSONRPCClient],
        configuration: DispatchConfiguration, policies: [any ActionPolicy]
    ) throws(ServiceConfigurationError) -> RpcDispatcher {
        let nodes: [ChainID: any EthereumNode] = upstream.mapValues { $0 }
        let policies = DefaultTransactionCaps.applied(to: policies)
        let dispatcher = RpcDispatcher(nodes: nodes, configuration: configuration) { policies }
        for (index, signer) in signers.enumerated() {
            let methods: Set<RpcMethod> =
                payers.contains(signer.address) ? [.sponsorTransaction] : RpcMethod.accountMethods
            do { try dispatcher.register(signer, methods: methods) } catch {
                throw ServiceConfigurationError(path: "keys[\(index)]", problem: "\(error)")
            }
        }
        for backend in backends {
            do { try dispatcher.register(backend) } catch {
                throw ServiceConfigurationError(path: "keys (\(backend.name))", problem: "\(error)")
            }
        }
        return dispatcher
    }

    /// How often `signerkit serve` sweeps the journal for transactions left unsent by a request that died.
    public static let recoveryInterval: Duration = .seconds(30)

    /// The sweep that re-sends what crashed requests journalled but never sent (`nil` without a journal).
    public var recovery: JournalRecovery? {
        guard let journal else { return nil }
        let nodes: [ChainID: any EthereumNode] = upstream.mapValues { $0 }
        return JournalRecovery(journal: journal, nodes: nodes)
    }

    /// The dispatcher new requests use.
    var dispatcher: RpcDispatcher { current.withLock { $0.dispatcher } }

    /// The names of the backends that sign (they stay across reloads).
    package var backendNames: Set<String> { dispatcher.backendNames }

    /// The clients allowed now.
    public var clients: [ServiceClient] { current.withLock { $0.clients } }

    /// Replaces who may call and the policies (`SIGHUP` in `signerkit serve`): requests already running
    /// finish under the old ones, every later request uses the new ones. Keys, nodes and limits stay.
    ///
    /// - Throws: ``ServiceConfigurationError`` (nothing is replaced) when `clients` is empty or repeats a name.
    public func reload(
        clients: [ServiceClient], policies: [any ActionPolicy], policySet: Bytes32? = nil,
        shadow: [any ActionPolicy]? = nil
    ) throws(ServiceConfigurationError) {
        guard !clients.isEmpty else { throw .init(path: "clients", problem: "at least one client is needed") }
        try ServiceClient.requireDistinct(clients)
        try Self.requireApprovers(for: policies, among: clients)
        let dispatcher = try Self.dispatcher(
            signers: signers, payers: configuration.roninPayers, backends: backends, upstream: upstream,
            configuration: dispatchConfiguration,
            policies: policies)
        current.withLock { $0 = Current(dispatcher: dispatcher, clients: clients) }
        policySetHash.withLock { $0 = policySet }
        shadowJudge.withLock { $0 = shadow.map { PolicyJudge(policies: $0) } }
    }

    /// Notes in `record` what a replay or a shadow policy needs of a signing call of `actions` by `client`:
    /// the actions themselves when the service keeps a ledger, and the shadow policies' verdicts.
    func noteForReplay(_ actions: [WalletRpcAction], client: ServiceClient, record: inout CallRecord) async {
        if configuration.ledger != nil { record.actions = actions }
        if let judge = shadowJudge.withLock({ $0 }) {
            record.shadowVerdicts = await judge.verdicts(actions, caller: client.name)
        }
    }

    /// A new audit record of `client` calling `method`, stamped with the policy set in force.
    func auditRecord(client: String, method: String) -> CallRecord {
        var record = CallRecord(client: client, method: method)
        record.policySet = policySetHash.withLock { $0 }
        return record
    }

    /// The client whose token this is (`Authorization: Bearer <token>`), compared by SHA-256 in constant time.
    public func client(bearerToken token: String) -> ServiceClient? { client(bearerToken: Array(token.utf8)) }

    /// The client whose token is `token` (its UTF-8 bytes), compared in constant time per client.
    func client(bearerToken token: [UInt8]) -> ServiceClient? {
        let digest = SHA256.hash(token)
        var found: ServiceClient?
        for client in clients {
            if ConstantTime.equal(digest, client.tokenSHA256) { found = client }
        }
        return found
    }

    /// The answer to a JSON-RPC body from `client`: one object, a batch array, or `nil` when the body held
    /// only notifications.
    public func answer(body: [UInt8], client: ServiceClient) async -> [UInt8]? {
        await respond(body: body, client: client).body
    }

    /// The answer to a JSON-RPC body and a record of each call in it (for the audit log and the metrics).
    ///
    /// With `idempotencyKey` (the request's `Idempotency-Key`), each call's transactions are journalled under
    /// the client, the key and the call's position, so a retry of the request re-sends them instead of signing
    /// new ones (the HTTP handler keeps and replays whole answers through the idempotency store).
    public func respond(body: [UInt8], client: ServiceClient, idempotencyKey: String? = nil) async -> ServiceAnswer {
        await respond(body: body, client: client, idempotencyKey: idempotencyKey, requestID: RequestIDs.next())
    }

    /// ``respond(body:client:idempotencyKey:)`` for the HTTP request `requestID` (its intent records carry it).
    func respond(body: [UInt8], client: ServiceClient, idempotencyKey: String?, requestID: String) async
        -> ServiceAnswer
    {
        // One deadline for the whole HTTP request: a batch of calls shares it, and node calls end by it.
        let deadline = clock.now.advanced(by: configuration.limits.requestTimeout)
        let value: JSONValue
        do { value = try JSONValue(parsing: body) } catch {
            return .single(ServiceCall.answer(id: nil, result: .failure(.parseError("\(error)"))), client: client)
        }
        switch value {
        case .array(let calls):
            guard !calls.isEmpty else {
                return .single(
                    ServiceCall.answer(id: nil, result: .failure(.invalidRequest("empty batch"))), client: client)
            }
            guard calls.count <= configuration.limits.maxBatchSize else {
                let error = JSONRPCError.batchTooLarge(configuration.limits.maxBatchSize)
                return .single(ServiceCall.answer(id: nil, result: .failure(error)), client: client)
            }
            var answers: [JSONValue] = []
            var records: [CallRecord] = []
            for (index, call) in calls.enumerated() {
                let callKey = idempotencyKey.map { RequestKey(client: client.name, key: $0, call: index) }
                let (answer, record) = await answer(
                    call, client: client, requestKey: callKey, requestID: requestID, deadline: deadline)
                if let answer { answers.append(answer) }
                records.append(record)
            }
            let body = answers.isEmpty ? nil : Array(JSONValue.array(answers).serialized.utf8)
            return ServiceAnswer(body: body, records: records)
        default:
            let callKey = idempotencyKey.map { RequestKey(client: client.name, key: $0, call: 0) }
            let (answer, record) = await answer(
                value, client: client, requestKey: callKey, requestID: requestID, deadline: deadline)
            return ServiceAnswer(body: answer.map { Array($0.serialized.utf8) }, records: [record])
        }
    }

    /// One call's answer object (`nil` for a notification) and its record; the call ends by `deadline` (the HTTP
    /// request's), and one that would begin after it is not run.
    func answer(
        _ value: JSONValue, client: ServiceClient, requestKey: RequestKey?, requestID: String,
        deadline: ContinuousClock.Instant
    ) async -> (JSONValue?, CallRecord) {
        let start = clock.now
        switch ServiceCall.read(value) {
        case .failure(let error):
            var record = auditRecord(client: client.name, method: value["method"]?.stringValue ?? "")
            record.errorCode = error.code
            return (ServiceCall.answer(id: value["id"], result: .failure(error)), record)
        case .success(let call):
            var record = auditRecord(client: client.name, method: call.method)
            record.requestID = requestID
            let result: Result<JSONValue, JSONRPCError>
            if start >= deadline {
                result = .failure(.requestTimeUsedUp)
            } else {
                result = await CallerDeadline.within(deadline, on: clock) {
                    await perform(call, client: client, requestKey: requestKey, deadline: deadline, record: &record)
                }
            }
            record.duration = clock.now - start
            switch result {
            case .success(let value): record.noteResult(value)
            case .failure(let error): record.errorCode = error.code
            }
            guard call.id != nil else { return (nil, record) }
            return (ServiceCall.answer(id: call.id, result: result), record)
        }
    }
}

/// A response body (`nil`: nothing to send, the body held only notifications) and one record per call.
public struct ServiceAnswer: Sendable {
    /// The JSON-RPC answer.
    public var body: [UInt8]?
    /// What each call did.
    public var records: [CallRecord]

    /// An answer of one error object for a body that held no readable call.
    static func single(_ answer: JSONValue, client: ServiceClient) -> ServiceAnswer {
        var record = CallRecord(client: client.name, method: "")
        if case .number(let code)? = answer["error"]?["code"] { record.errorCode = Int(code) }
        return ServiceAnswer(body: Array(answer.serialized.utf8), records: [record])
    }
}
