import Dispatch
import Foundation
import Synchronization
import Testing

@testable import SignerKit

@Suite("BlockingAwait: async work from a blocking thread")
struct BlockingAwaitTests {
    @Test("finishes while every cooperative thread is blocked")
    func independentOfTheCooperativePool() async {
        let outcome = await Self.onThread { () -> (finished: Bool, value: Int?) in
            // Occupy every thread of the cooperative pool (one per core) until released.
            let release = DispatchSemaphore(value: 0)
            let started = StartCounter()
            let width = ProcessInfo.processInfo.activeProcessorCount
            for _ in 0..<width {
                Task.detached {
                    started.count.add(1, ordering: .relaxed)
                    release.wait()
                }
            }
            let startDeadline = ContinuousClock.now.advanced(by: .seconds(10))
            while started.count.load(ordering: .relaxed) < width && ContinuousClock.now < startDeadline {
                usleep(1_000)
            }

            // Async work that suspends and resumes: it needs an executor while the pool is blocked.
            let value = Mutex<Int?>(nil)
            let done = DispatchSemaphore(value: 0)
            Thread {
                let answer = BlockingAwait.run { () async -> Int in
                    try? await Task.sleep(for: .milliseconds(20))
                    return 42
                }
                value.withLock { $0 = answer }
                done.signal()
            }.start()
            let finished = done.wait(timeout: .now() + 10) == .success
            for _ in 0..<width { release.signal() }
            return (finished, value.withLock { $0 })
        }
        #expect(outcome.finished, "BlockingAwait.run did not finish while the cooperative pool was blocked")
        #expect(outcome.value == 42)
    }

    /// Runs `body` on a thread of its own and resumes with its result.
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}

/// Counts blocking tasks that have started.
private final class StartCounter: Sendable {
    let count = Atomic<Int>(0)
}
