import EthereumPrimitives
import Synchronization
import WalletConnectPay

/// The outcome of one page session: set once (by the page's message, the deadline or cancellation) and
/// awaited by the one caller that showed the page.
final class PageOutcomeSlot: Sendable {
    private enum State {
        case waiting([CheckedContinuation<PayFlow.DataCollectionOutcome, Never>])
        case done(PayFlow.DataCollectionOutcome)
    }

    private let state = Mutex<State>(.waiting([]))

    /// Sets the outcome and wakes the waiter; `false` when it was already set (the later value is dropped).
    @discardableResult
    func fulfill(_ outcome: PayFlow.DataCollectionOutcome) -> Bool {
        let woken: [CheckedContinuation<PayFlow.DataCollectionOutcome, Never>]? = state.withLock { state in
            guard case .waiting(let waiters) = state else { return nil }
            state = .done(outcome)
            return waiters
        }
        guard let woken else { return false }
        for waiter in woken { waiter.resume(returning: outcome) }
        return true
    }

    /// The outcome, or `PayFlow/DataCollectionOutcome/timedOut` once `clock` reaches `deadline` first, or
    /// `PayFlow/DataCollectionOutcome/declined` when the calling task is cancelled first.
    func value(until deadline: ContinuousClock.Instant, on clock: any SignerClock) async
        -> PayFlow.DataCollectionOutcome
    {
        let timer = Task {
            do {
                try await clock.sleep(until: deadline)
                fulfill(.timedOut)
            } catch {}
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: PayFlow.DataCollectionOutcome? = state.withLock { state in
                    switch state {
                    case .done(let outcome): return outcome
                    case .waiting(var waiters):
                        waiters.append(continuation)
                        state = .waiting(waiters)
                        return nil
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            fulfill(.declined)
        }
    }
}
