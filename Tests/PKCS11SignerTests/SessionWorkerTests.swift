import Foundation
import SignerKitTestSupport
import Synchronization
import Testing

@testable import PKCS11Signer

@Suite("A PKCS#11 session's thread")
struct SessionWorkerTests {
    /// Runs `job` on `worker` and returns its result.
    func run<T: Sendable>(on worker: SessionWorker, _ job: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in worker.submit { continuation.resume(returning: job()) } }
    }

    @Test("jobs run one at a time, in the order they were queued, on one thread that is not the caller's")
    func orderAndThread() async {
        let worker = SessionWorker()
        defer { worker.stop() }
        let seen = Mutex<[Int]>([])
        let threads = Mutex<Set<UInt>>([])
        let running = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
        for index in 0..<200 {
            worker.submit {
                if running.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
                    overlapped.store(true, ordering: .relaxed)
                }
                threads.withLock { _ = $0.insert(UInt(pthread_self())) }
                seen.withLock { $0.append(index) }
                running.subtract(1, ordering: .sequentiallyConsistent)
            }
        }
        let last = await run(on: worker) { seen.withLock { $0.count } }
        #expect(last == 200)
        #expect(seen.withLock { $0 } == Array(0..<200))
        #expect(threads.withLock { $0.count } == 1)
        #expect(!threads.withLock { $0.contains(UInt(pthread_self())) })
        let didOverlap = overlapped.load(ordering: .relaxed)
        #expect(!didOverlap)
    }

    @Test("a parked thread wakes for the next job")
    func wakesAfterParking() async throws {
        let worker = SessionWorker()
        defer { worker.stop() }
        for round in 0..<5 {
            // The thread parks once its poll has found no job; the bound only ends a hang.
            try #require(await RealTime.poll(within: .seconds(30)) { worker.isParked }, "round \(round)")
            #expect(await run(on: worker) { round * 2 } == round * 2)
        }
    }

    @Test("stop runs the jobs already queued, then the thread ends and releases the worker")
    func stopDrainsAndEnds() async throws {
        let ran = Atomic<Int>(0)
        let stopped = DispatchSemaphore(value: 0)
        weak var released: SessionWorker?
        do {
            let worker = SessionWorker()
            released = worker
            // The first job holds the thread until stop() has been called: the ten are still queued then.
            worker.submit { stopped.wait() }
            for _ in 0..<10 {
                worker.submit { ran.add(1, ordering: .relaxed) }
            }
            worker.stop()
            stopped.signal()
        }
        // The worker's thread ends at the scheduler's pace; the bound only ends a hang.
        _ = await RealTime.poll(within: .seconds(30)) { released == nil }
        #expect(released == nil, "the worker's thread did not end")
        let jobsRun = ran.load(ordering: .relaxed)
        #expect(jobsRun == 10)
    }
}
