import EIP712
import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SoftwareSigner
import Synchronization

/// Names of the dispatcher cases.
enum DispatcherCase {
    /// The floor: what signing one typed-data document costs without the dispatcher.
    static let direct = "direct: parse + hash + sign Ronin Order"
    /// The direct work plus what the dispatcher's verification adds: one recovery of the signature.
    static let directVerified = "direct: parse + hash + sign + recover Ronin Order"
    /// The same work through `RpcDispatcher.sign(actions:)` (which verifies every result).
    static let dispatchOne = "dispatch 1 typed-data action (Ronin Order)"
    /// 200 actions, one `sign(actions:)` call each, awaited one after another in a single task.
    static let batchOneTask = "200 typed-data actions, one task"
    /// The same 200 actions in one `sign(actions:)` call (resolution and backends run concurrently).
    static let batchConcurrent = "200 typed-data actions, concurrent"
    /// Reference for the machine: the direct work for the same 200 documents in one task…
    static let directBatchOneTask = "direct: 200 Ronin Orders, one task"
    /// …and split evenly over one task per core: the parallel speed-up the hardware gives right now.
    static let directBatchPerCore = "direct: 200 Ronin Orders, one task per core"
}

/// Actions in the batch cases.
private let batchSize = 200

/// `RpcDispatcher` overhead and concurrency on `eth_signTypedData_v4` of the Ronin Order fixture.
///
/// Every case runs its `n` iterations inside ONE ``runBlocking(_:)`` bridge (a detached task the benchmark
/// thread waits for), the direct baselines included, so both sides of each ratio pay the same, amortised
/// bridging cost.
///
/// - "dispatch 1 …" vs "direct: parse + hash + sign …": the dispatcher's per-call overhead on top of JSON
///   parsing, EIP-712 hashing and secp256k1 signing, verification of the result included (one recovery).
/// - "direct: … + recover" vs "direct: parse + hash + sign …": what that verification alone costs, so the
///   dispatcher's own share is the difference of the two ratios.
/// - "200 …, concurrent" vs "200 …, one task": the time ratio of one 200-action batch to 200 one-action
///   calls; the throughput gain is 1 / ratio (target ≥ 1.7× on two cores, i.e. a ratio ≤ 0.59×).
/// - "direct: 200 …, one task per core" vs "direct: 200 …, one task": the same ratio for the bare work split
///   by hand — what the machine allowed during this run (on a shared virtual machine it varies).
func dispatcherBenchmarks() -> [Benchmark] {
    let fixture = loadRoninOrderFixture()
    let key: SoftwareKeySigner
    do { key = try SoftwareKeySigner(hex: BenchmarkFixtures.keyHex) } catch {
        fatalError("dispatcher benchmarks: bad benchmark key: \(error)")
    }
    let privateKey = key.privateKey
    let chain = ChainID(eip155: 2021)  // the fixture's domain.chainId (Ronin Saigon)
    let dispatcher = RpcDispatcher()
    do { try dispatcher.register(key, chains: [chain]) } catch {
        fatalError("dispatcher benchmarks: cannot register the key: \(error)")
    }

    let one = [typedDataAction(fixture, nonce: nil, signer: key.address, chain: chain)]
    let batch = (0..<batchSize).map { typedDataAction(fixture, nonce: $0, signer: key.address, chain: chain) }
    let batchDocuments = batch.map(typedDataText(of:))
    let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)

    checkDispatcherAgainstDirect(dispatcher, actions: one + batch.prefix(5), privateKey: privateKey)

    return [
        Benchmark(name: DispatcherCase.direct, group: "dispatch") { iterations in
            let document = [fixture][...]
            let accumulator = runBlocking { () -> UInt8 in
                var accumulator: UInt8 = 0
                for _ in 0..<iterations { accumulator ^= signDirectly(document, with: privateKey) }
                return accumulator
            }
            blackHole(accumulator)
        },
        Benchmark(name: DispatcherCase.directVerified, group: "dispatch", baseline: DispatcherCase.direct) {
            iterations in
            let document = [fixture][...]
            let accumulator = runBlocking { () -> UInt8 in
                var accumulator: UInt8 = 0
                for _ in 0..<iterations { accumulator ^= signDirectly(document, with: privateKey, recovering: true) }
                return accumulator
            }
            blackHole(accumulator)
        },
        Benchmark(name: DispatcherCase.dispatchOne, group: "dispatch", baseline: DispatcherCase.direct) { iterations in
            let accumulator = runBlocking { () -> UInt8 in
                var accumulator: UInt8 = 0
                for _ in 0..<iterations { accumulator ^= await dispatch(one, with: dispatcher) }
                return accumulator
            }
            blackHole(accumulator)
        },
        Benchmark(name: DispatcherCase.batchOneTask, group: "dispatch") { iterations in
            let accumulator = runBlocking { () -> UInt8 in
                var accumulator: UInt8 = 0
                for _ in 0..<iterations {
                    for action in batch { accumulator ^= await dispatch([action], with: dispatcher) }
                }
                return accumulator
            }
            blackHole(accumulator)
        },
        Benchmark(name: DispatcherCase.batchConcurrent, group: "dispatch", baseline: DispatcherCase.batchOneTask) {
            iterations in
            let accumulator = runBlocking { () -> UInt8 in
                var accumulator: UInt8 = 0
                for _ in 0..<iterations { accumulator ^= await dispatch(batch, with: dispatcher) }
                return accumulator
            }
            blackHole(accumulator)
        },
        Benchmark(name: DispatcherCase.directBatchOneTask, group: "dispatch") { iterations in
            let accumulator = runBlocking { () -> UInt8 in
                var accumulator: UInt8 = 0
                for _ in 0..<iterations { accumulator ^= signDirectly(batchDocuments[...], with: privateKey) }
                return accumulator
            }
            blackHole(accumulator)
        },
        Benchmark(
            name: DispatcherCase.directBatchPerCore, group: "dispatch", baseline: DispatcherCase.directBatchOneTask
        ) { iterations in
            let accumulator = runBlocking { () -> UInt8 in
                var accumulator: UInt8 = 0
                for _ in 0..<iterations {
                    accumulator ^= await withTaskGroup(of: UInt8.self) { group in
                        let chunk = (batchDocuments.count + cores - 1) / cores
                        for start in stride(from: 0, to: batchDocuments.count, by: chunk) {
                            let documents = batchDocuments[start..<min(start + chunk, batchDocuments.count)]
                            group.addTask { signDirectly(documents, with: privateKey) }
                        }
                        var combined: UInt8 = 0
                        for await part in group { combined ^= part }
                        return combined
                    }
                }
                return accumulator
            }
            blackHole(accumulator)
        },
    ]
}

/// Parse + hash + sign each document: `TypedData(jsonText:)`, `digest()`, `PrivateKey.sign(prehash:)`; with
/// `recovering`, also the dispatcher's check of the result (`SignatureCheck.verify`: low-s and one recovery).
private func signDirectly(
    _ documents: ArraySlice<String>, with privateKey: PrivateKey, recovering: Bool = false
) -> UInt8 {
    var accumulator: UInt8 = 0
    for text in documents {
        do {
            let digest = try TypedData(jsonText: text).digest()
            let signature = privateKey.sign(prehash: digest)
            if recovering { try SignatureCheck.verify(signature, over: digest, by: privateKey.address) }
            accumulator ^= signature.s[31]
        } catch {
            fatalError("direct typed-data signing failed: \(error)")
        }
    }
    return accumulator
}

/// One `sign(actions:)` call; a byte of its last signature, so the optimizer keeps the work.
private func dispatch(_ actions: [WalletRpcAction], with dispatcher: RpcDispatcher) async -> UInt8 {
    let signed: SignedActions
    do { signed = try await dispatcher.sign(actions: actions) } catch {
        fatalError("dispatch failed: \(error)")
    }
    guard case .signature(let signature)? = signed.outcomes.last else { return 0 }
    return signature.s[31]
}

/// The Ronin Order typed data, as the file's text.
private func loadRoninOrderFixture() -> String {
    guard let text = BenchmarkFixtures.roninOrderText else {
        fatalError("dispatcher benchmarks: the ronin_order.json vector is missing")
    }
    return text
}

/// An `eth_signTypedData_v4` action whose params are `[signer, <typed data object>]`; with a `nonce`, the
/// order's `"nonce": "0"` is replaced so every action of a batch signs a different digest.
private func typedDataAction(_ fixture: String, nonce: Int?, signer: Address, chain: ChainID) -> WalletRpcAction {
    var typedData = fixture
    if let nonce {
        guard let range = typedData.range(of: "\"nonce\": \"0\"") else {
            fatalError("dispatcher benchmarks: the fixture has no \"nonce\": \"0\" to vary")
        }
        typedData.replaceSubrange(range, with: "\"nonce\": \"\(nonce)\"")
    }
    return WalletRpcAction(
        chainId: chain, method: .signTypedDataV4, params: "[\"\(signer.lowercased)\", \(typedData)]")
}

/// The typed-data document of an action built by ``typedDataAction(_:nonce:signer:chain:)``, as JSON text.
private func typedDataText(of action: WalletRpcAction) -> String {
    guard let params = try? JSONValue(parsing: action.params), case .array(let elements) = params, elements.count == 2
    else { fatalError("dispatcher benchmarks: unexpected params \(action.params.prefix(40))") }
    return elements[1].serialized
}

/// Refuses to time a dispatcher that returns anything but the direct signatures, in order.
private func checkDispatcherAgainstDirect(
    _ dispatcher: RpcDispatcher, actions: [WalletRpcAction], privateKey: PrivateKey
) {
    let outcome = runBlocking { () -> Result<SignedActions, DispatchError> in
        let result: Result<SignedActions, DispatchError>
        do throws(DispatchError) { result = .success(try await dispatcher.sign(actions: actions)) } catch {
            result = .failure(error)
        }
        return result
    }
    let signed: SignedActions
    switch outcome {
    case .success(let value): signed = value
    case .failure(let error): fatalError("dispatcher benchmarks: self-check: \(error)")
    }
    guard signed.answers(actions) else {
        fatalError("dispatcher benchmarks: self-check: the bundle answers other actions")
    }
    for (index, action) in actions.enumerated() {
        let expected: String
        do {
            expected = privateKey.sign(prehash: try TypedData(jsonText: typedDataText(of: action)).digest()).hex
        } catch {
            fatalError("dispatcher benchmarks: self-check: \(error)")
        }
        guard signed.results[index] == expected else {
            fatalError(
                "dispatcher benchmarks: self-check: result \(index) is \(signed.results[index]), expected \(expected)")
        }
    }
}

/// Holds an async result for the thread that waits for it.
private final class BlockingSlot<T: Sendable>: Sendable {
    let value = Mutex<T?>(nil)
}

/// Runs `body` in a detached task and blocks the calling thread (the benchmark's main thread, which is not
/// one of the cooperative pool's threads) until it returns.
///
/// One call per sample: the harness times `run(n)`, so the task creation and the semaphore hand-off are
/// amortised over `n` iterations, identically for every case.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let slot = BlockingSlot<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let result = await body()
        slot.value.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    guard let result = slot.value.withLock({ $0 }) else { fatalError("runBlocking: the task produced no result") }
    return result
}
