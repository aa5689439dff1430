import EthereumPrimitives
import SignerKit
import SoftwareSigner

/// Names of the service-baseline cases (scripts/load-service.sh reads them from the JSON results).
enum ServiceCase {
    /// One `personal_sign` through `RpcDispatcher.sign(actions:)`, calls awaited one after another.
    static let personalSignOneTask = "service baseline: personal_sign, one task"
    /// The same calls spread over 8 concurrent tasks: what `signerkit serve` is compared against when 8
    /// keep-alive HTTP clients send it the same `personal_sign` (one iteration = one call, so
    /// 1e9 / median ns is the in-process calls per second).
    static let personalSignConcurrent = "service baseline: personal_sign, 8 concurrent tasks"
}

/// Concurrent callers in ``ServiceCase/personalSignConcurrent`` (the load script's HTTP connections).
let serviceBaselineTasks = 8

/// The in-process side of the service load test: the `personal_sign` work `signerkit serve` does for
/// `["0x68656c6c6f20776f726c64", <address>]` on its default chain, without HTTP, JSON-RPC, authentication,
/// preview or audit log. The key is registered the way the service registers its keys (every chain).
func serviceBenchmarks() -> [Benchmark] {
    let key: SoftwareKeySigner
    do { key = try SoftwareKeySigner(hex: BenchmarkFixtures.keyHex) } catch {
        fatalError("service benchmarks: bad benchmark key: \(error)")
    }
    let dispatcher = RpcDispatcher()
    do { try dispatcher.register(key) } catch {
        fatalError("service benchmarks: cannot register the key: \(error)")
    }
    let action = WalletRpcAction(
        chainId: ChainID(eip155: 2021), method: .personalSign,
        params: "[\"0x68656c6c6f20776f726c64\", \"\(key.address.lowercased)\"]")
    let actions = [action]

    return [
        Benchmark(name: ServiceCase.personalSignOneTask, group: "service") { iterations in
            let accumulator = runBlocking { () -> UInt8 in
                var accumulator: UInt8 = 0
                for _ in 0..<iterations { accumulator ^= await personalSign(actions, with: dispatcher) }
                return accumulator
            }
            blackHole(accumulator)
        },
        Benchmark(
            name: ServiceCase.personalSignConcurrent, group: "service", baseline: ServiceCase.personalSignOneTask
        ) { iterations in
            let accumulator = runBlocking { () -> UInt8 in
                await withTaskGroup(of: UInt8.self) { group in
                    for task in 0..<serviceBaselineTasks {
                        // Task t makes iterations / 8 calls, the first (iterations % 8) tasks one more.
                        let share =
                            iterations / serviceBaselineTasks + (task < iterations % serviceBaselineTasks ? 1 : 0)
                        group.addTask {
                            var accumulator: UInt8 = 0
                            for _ in 0..<share { accumulator ^= await personalSign(actions, with: dispatcher) }
                            return accumulator
                        }
                    }
                    var combined: UInt8 = 0
                    for await part in group { combined ^= part }
                    return combined
                }
            }
            blackHole(accumulator)
        },
    ]
}

/// One `sign(actions:)` call; a byte of its signature, so the optimizer keeps the work.
private func personalSign(_ actions: [WalletRpcAction], with dispatcher: RpcDispatcher) async -> UInt8 {
    let signed: SignedActions
    do { signed = try await dispatcher.sign(actions: actions) } catch {
        fatalError("service baseline: personal_sign failed: \(error)")
    }
    guard case .signature(let signature)? = signed.outcomes.last else {
        fatalError("service baseline: personal_sign gave no signature")
    }
    return signature.s[31]
}
