import CCurl
import Foundation
import Synchronization

/// One libcurl multi handle driven by one thread of its own, so no Swift cooperative thread ever blocks
/// on the network: callers hand transfers over and are resumed when they end.
///
/// The thread waits in `curl_multi_poll` (at most a second while transfers run); submissions and
/// cancellations wake it with `curl_multi_wakeup`. libcurl enforces each transfer's time limit,
/// set from its deadline when the transfer starts.
final class CurlEngine: @unchecked Sendable {
    /// The process-wide engine.
    static let shared = CurlEngine()

    private struct Inbox {
        var adds: [CurlTransfer] = []
        var cancels: [CurlTransfer] = []
    }

    private let multi: UnsafeMutableRawPointer?
    private let inbox = Mutex(Inbox())
    /// Running transfers by easy handle; only the engine thread touches it.
    private var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    private init() {
        CurlGlobal.initialize()
        multi = curl_multi_init()
        guard multi != nil else { return }
        let thread = Thread { [self] in loop() }
        thread.name = "signerkit-curl"
        thread.start()
    }

    /// Starts `transfer` (or fails it at once when the engine is unusable).
    func submit(_ transfer: CurlTransfer) {
        guard let multi else {
            transfer.finish(.failure(.notSent("libcurl could not create a multi handle")))
            return
        }
        inbox.withLock { $0.adds.append(transfer) }
        curl_multi_wakeup(multi)
    }

    /// Stops `transfer` if it runs; it then ends with ``HTTPError/cancelled(requestSent:)``.
    func cancel(_ transfer: CurlTransfer) {
        transfer.cancelRequested.store(true, ordering: .releasing)
        guard let multi else { return }
        inbox.withLock { $0.cancels.append(transfer) }
        curl_multi_wakeup(multi)
    }

    private func loop() {
        guard let multi else { return }
        while true {
            let (adds, cancels) = inbox.withLock { inbox in
                defer { inbox = Inbox() }
                return (inbox.adds, inbox.cancels)
            }
            for transfer in adds { start(transfer, multi: multi) }
            for transfer in cancels { stop(transfer, multi: multi, result: nil) }

            var active: Int32 = 0
            _ = curl_multi_perform(multi, &active)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = running[easy]
                else { continue }
                stop(transfer, multi: multi, result: transfer.outcome(message.pointee.data.result))
            }
            _ = curl_multi_poll(multi, nil, 0, running.isEmpty ? 60_000 : 1_000, nil)
        }
    }

    private func start(_ transfer: CurlTransfer, multi: UnsafeMutableRawPointer) {
        if transfer.cancelRequested.load(ordering: .acquiring) {
            transfer.finish(.failure(.cancelled(requestSent: false)))
            return
        }
        do {
            guard try transfer.applyDeadline(now: .now) else {
                transfer.finish(.failure(.timeout(requestSent: false)))
                return
            }
        } catch {
            transfer.finish(.failure(error))
            return
        }
        guard curl_multi_add_handle(multi, transfer.easy) == CURLM_OK else {
            transfer.finish(.failure(.notSent("libcurl did not accept the transfer")))
            return
        }
        running[transfer.easy] = transfer
    }

    /// Removes a running transfer and ends it with `result` (a cancellation when `nil`).
    private func stop(
        _ transfer: CurlTransfer, multi: UnsafeMutableRawPointer, result: Result<HTTPResponse, HTTPError>?
    ) {
        guard running.removeValue(forKey: transfer.easy) != nil else { return }
        let outcome = result ?? .failure(.cancelled(requestSent: transfer.requestSent))
        curl_multi_remove_handle(multi, transfer.easy)
        transfer.finish(outcome)
    }
}
