import EthereumPrimitives
import EthereumTransactions
import SignerKitSupport
import Synchronization

/// One failed action: its index and what went wrong. `consequence` marks failures caused by an earlier
/// failure (an action whose dependency failed, or that was not started because the batch stopped), so the
/// root cause is the one reported.
struct ActionFailure: Error, Sendable {
    let index: Int
    let kind: DispatchError.Kind
    var consequence = false
}

/// One result slot per action, written by the lanes (each index by exactly one lane), and the failures.
final class ResultSlots: Sendable {
    private let slots: Mutex<[ActionResult?]>
    private let failures = Mutex<[ActionFailure]>([])

    init(count: Int) { slots = Mutex([ActionResult?](repeating: nil, count: count)) }

    func store(_ result: ActionResult, at index: Int) { slots.withLock { $0[index] = result } }

    func record(_ failure: ActionFailure) { failures.withLock { $0.append(failure) } }

    /// The first failure that is not a consequence of another, else the first one.
    var rootFailure: ActionFailure? {
        failures.withLock { list in list.first { !$0.consequence } ?? list.first }
    }

    /// Every result in slot order, or `nil` when a slot is empty.
    func collect() -> [ActionResult]? {
        slots.withLock { slots in
            var filled: [ActionResult] = []
            filled.reserveCapacity(slots.count)
            for slot in slots {
                guard let slot else { return nil }
                filled.append(slot)
            }
            return filled
        }
    }
}

extension RpcDispatcher {
    /// Runs a prepared batch: lanes concurrently, each in order; dependent actions wait for their
    /// transaction to be mined; every result verified; results by index. Marks the batch's journal entries
    /// as reported once every slot is filled.
    func execute(
        _ jobs: [RoutedAction], idempotencyKey: String?,
        deadline: ContinuousClock.Instant?, approvedRules: Set<String> = []
    ) async throws(DispatchError) -> [ActionResult] {
        let requests = jobs.map(\.request)
        let plan = try BatchPlan(requests, ordersDependentActions: configuration.ordersDependentActions)
        let identities = claimIdentities(of: requests, idempotencyKey: idempotencyKey)
        defer { liveIdentities.release(identities.values) }
        let batch = BatchContext(
            journal: configuration.journal, identities: identities, keyed: idempotencyKey != nil,
            filledTransactionPolicies: filledTransactionPolicies,
            nonceReservationLease: configuration.nonceReservationLease, usagePolicies: usagePolicies,
            approvedRules: approvedRules)
        let run = BatchRun(jobs: jobs, plan: plan, batch: batch, configuration: configuration, deadline: deadline)
        // Node calls (fills, sends, receipts) end by the caller's deadline too, not a full timeout each.
        let results = await CallerDeadline.within(deadline, on: configuration.clock) { await run.results() }
        switch results {
        case .success(let results):
            if let journal = batch.journal {
                // The caller receives the bundle now: these transactions are history. If marking fails, a
                // retry re-sends the same bytes (or reads their receipt): never a second payment.
                try? await journal.resolve(Array(batch.broadcastTransactions.values), as: .reported)
                CrashPoint.reached(.reported)
            }
            return results
        case .failure(let failure):
            let kind: DispatchError.Kind = Task.isCancelled ? .cancelled : failure.kind
            throw DispatchError(
                index: failure.index, method: jobs[failure.index].request.action.method, kind: kind,
                broadcast: batch.broadcastTransactions)
        }
    }

    /// The journal identity of every `eth_sendTransaction` (none without a journal), each claimed in this
    /// dispatcher's live identities until the batch ends (the caller releases them).
    ///
    /// Without a key an action is known by its bytes: the first occurrence no running batch holds, so two
    /// identical payments running at once are two payments, while a re-run after a failure finds its entry.
    private func claimIdentities(of requests: [ResolvedRequest], idempotencyKey: String?) -> [Int: ActionIdentity] {
        guard configuration.journal != nil else { return [:] }
        var identities: [Int: ActionIdentity] = [:]
        var occurrences: [WalletRpcAction: [Address: Int]] = [:]
        for request in requests where request.method == .sendTransaction {
            if let idempotencyKey {
                identities[request.index] = ActionIdentity(idempotencyKey: idempotencyKey, index: request.index)
                continue
            }
            var occurrence = occurrences[request.action, default: [:]][request.account, default: 0]
            var identity = ActionIdentity(action: request.action, account: request.account, occurrence: occurrence)
            while !liveIdentities.claim(identity) {
                occurrence += 1
                identity = ActionIdentity(action: request.action, account: request.account, occurrence: occurrence)
            }
            occurrences[request.action, default: [:]][request.account] = occurrence + 1
            identities[request.index] = identity
        }
        return identities
    }
}

/// One `sign(actions:)` call's execution.
struct BatchRun: Sendable {
    let jobs: [RoutedAction]
    let plan: BatchPlan
    let batch: BatchContext
    let configuration: DispatchConfiguration
    let deadline: ContinuousClock.Instant?

    /// Contract accounts' signatures still to be checked by their accounts, once every result is in.
    let accountClaims = PendingAccountClaims()

    /// Every result in action order, or the root failure.
    func results() async -> Result<[ActionResult], ActionFailure> {
        let results = await collectResults()
        guard case .success = results else { return results }
        do throws(ActionFailure) { try await accountClaims.verify(jobs.map(\.request)) } catch {
            return .failure(error)
        }
        return results
    }

    /// Every result in action order (each checked as far as SignerKit can alone), or the root failure.
    private func collectResults() async -> Result<[ActionResult], ActionFailure> {
        let slots = ResultSlots(count: jobs.count)
        if jobs.count == 1 {
            do throws(ActionFailure) { return .success([try await perform(0)]) } catch { return .failure(error) }
        }
        // A discarding group: the parent is not woken per finished lane, and the first lane that throws
        // cancels the others.
        try? await withThrowingDiscardingTaskGroup { group in
            for lane in plan.lanes {
                group.addTask { try await run(lane: lane, into: slots) }
            }
        }
        if let failure = slots.rootFailure { return .failure(failure) }
        guard let results = slots.collect() else {
            return .failure(ActionFailure(index: 0, kind: .backend(.backendFailure("no result"))))
        }
        return .success(results)
    }

    /// Runs one lane in order; at its first failure records it, fails the lane's gates and throws.
    private func run(lane: [Int], into slots: ResultSlots) async throws(ActionFailure) {
        defer { for index in lane { plan.gates[index]?.finish(succeeded: false) } }
        for (position, index) in lane.enumerated() {
            do throws(ActionFailure) {
                if position > 0 && Task.isCancelled {
                    throw ActionFailure(
                        index: index, kind: .backend(.backendFailure("not started: the batch was cancelled")),
                        consequence: true)
                }
                slots.store(try await perform(index), at: index)
                plan.gates[index]?.finish(succeeded: true)
            } catch {
                slots.record(error)
                throw error
            }
        }
    }

    /// Waits for the action's dependency, gets its result (from the journal or the backend), verifies it,
    /// and follows a broadcast transaction to its receipt when that is asked for.
    private func perform(_ index: Int) async throws(ActionFailure) -> ActionResult {
        let job = jobs[index]
        let request = job.request
        if let dependency = plan.dependencies[index], let gate = plan.gates[dependency] {
            guard await gate.wait() else {
                throw ActionFailure(
                    index: index,
                    kind: .backend(
                        .backendFailure("not started: action[\(dependency)]'s transaction was not mined with status 1")),
                    consequence: true)
            }
        }
        // Quotas count the action before its backend is asked, and take it back when it fails; a transaction the
        // journal already holds is no new use and is not counted again.
        var charges: [UsageAdmissions.Admitted] = []
        let result: ActionResult
        do throws(ActionFailure) {
            if let replayed = try await replayed(job) {
                result = replayed
            } else {
                charges = try await batch.usage.admit(request)
                result = try await produce(job)
            }
            do throws(ResultVerifier.Failure) {
                if let claim = try ResultVerifier.verify(result, for: request) { accountClaims.add(claim, at: index) }
            } catch {
                throw ActionFailure(index: index, kind: .verificationFailed(error.description))
            }
        } catch {
            // A transaction that may be on its way stays counted.
            if batch.broadcastTransactions[index] == nil { await batch.usage.refund(charges) }
            throw error
        }
        if case .transactionHash(let hash) = result {
            batch.noteBroadcast(hash, at: index)
            let awaited = plan.gates[index] != nil || configuration.confirmsTransactions
            if awaited, let node = request.node {
                let limit = configuration.clock.now.advanced(by: configuration.receiptTimeout)
                do throws(DispatchError.Kind) {
                    try await TransactionBroadcaster.confirm(
                        hash, account: request.account, node: node, deadline: min(limit, deadline ?? limit),
                        pollInterval: configuration.receiptPollInterval, clock: configuration.clock)
                } catch {
                    throw ActionFailure(index: index, kind: error)
                }
                CrashPoint.reached(.mined)
            }
        }
        return result
    }

    /// The action's result re-sent from its journal entry when it is a retry of a journalled transaction, else
    /// `nil`.
    private func replayed(_ job: RoutedAction) async throws(ActionFailure) -> ActionResult? {
        let request = job.request
        let index = request.index
        guard request.method == .sendTransaction, let journal = batch.journal, let identity = batch.identities[index]
        else { return nil }
        let entry: JournalEntry?
        // A keyed action is paid once: its entry answers even after its success was reported.
        do { entry = try await journal.entry(for: identity, includingReported: batch.keyed) } catch {
            throw ActionFailure(index: index, kind: .journalFailure(error.description))
        }
        guard let entry else { return nil }
        if let reason = Self.difference(between: entry, and: request) {
            throw ActionFailure(index: index, kind: .idempotencyKeyReused(journalled: entry.hash, reason: reason))
        }
        guard let node = request.node else {
            throw ActionFailure(index: index, kind: .noNode(request.action.chainId.description))
        }
        batch.noteBroadcast(entry.hash, at: index)
        batch.noteNonce(entry.nonce, in: NonceLane(account: entry.account, chain: entry.chain))
        do throws(DispatchError.Kind) {
            return .transactionHash(try await TransactionBroadcaster.replay(entry, journal: journal, node: node))
        } catch {
            throw ActionFailure(index: index, kind: error)
        }
    }

    /// The action's new result: the transaction pipeline's for a key's transaction, else the backend's.
    private func produce(_ job: RoutedAction) async throws(ActionFailure) -> ActionResult {
        let request = job.request
        let index = request.index
        if case .transaction(let transaction, let feesOpen) = request.payload, let signer = job.pipelineSigner {
            let pipeline = TransactionPipeline(
                signer: signer, request: request, batch: batch, transaction: transaction, feesOpen: feesOpen)
            do throws(DispatchError.Kind) { return try await pipeline.run() } catch {
                throw ActionFailure(index: index, kind: error)
            }
        }
        switch await Self.outcome(of: job.backend, for: request) {
        case .success(let result): return result
        case .failure(let error): throw ActionFailure(index: index, kind: DispatchError.Kind(backendError: error))
        }
    }

    /// Why the journalled transaction of `entry` does not answer `request` (another recipient, value, data,
    /// chain, sender or given field), or `nil` when it does.
    private static func difference(between entry: JournalEntry, and request: ResolvedRequest) -> String? {
        guard case .transaction(let transaction, let feesOpen) = request.payload else { return "not a transaction" }
        let signed: SignedTransaction
        do { signed = try SignedTransaction.decode(raw: entry.rawTransaction) } catch {
            return "the journalled transaction does not decode: \(error)"
        }
        do throws(ResultVerifier.Failure) {
            try ResultVerifier.verify(signed, matches: transaction, feesOpen: feesOpen, for: request)
        } catch {
            return error.description
        }
        return nil
    }

    /// Calls one backend, turning its error into a value.
    ///
    /// Kept apart on purpose: Swift 6.3 release builds miscompile a child task written as
    /// `do { return (index, .success(try await …)) } catch { return (index, .failure(error)) }`
    /// — the index comes back as garbage (an out-of-range slot write crashes the process).
    private static func outcome(
        of backend: any WalletRpcSigner, for request: ResolvedRequest
    ) async -> Result<ActionResult, SignerError> {
        do throws(SignerError) { return .success(try await backend.handle(request)) } catch { return .failure(error) }
    }

}
