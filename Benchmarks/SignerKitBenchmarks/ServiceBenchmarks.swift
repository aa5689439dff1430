import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitHTTPServer
import SignerKitService
import SoftwareSigner

/// Names of the service-baseline cases (scripts/load-service.sh reads them from the JSON results).
enum ServiceCase {
    /// One `personal_sign` through `RpcDispatcher.sign(actions:)`, calls awaited one after another.
    static let personalSignOneTask = "service baseline: personal_sign, one task"
    /// The same calls spread over 8 concurrent tasks: what `signerkit serve` is compared against when 8
    /// keep-alive HTTP clients send it the same `personal_sign` (one iteration = one call, so
    /// 1e9 / median ns is the in-process calls per second).
    static let personalSignConcurrent = "service baseline: personal_sign, 8 concurrent tasks"
    /// The same calls from 8 tasks, each also writing the call's audit line the way `signerkit serve` does
    /// (prepare, sign, a `CallRecord`, ``AuditLog/append(_:requestID:at:)`` with its group-committed `fsync`,
    /// in a temporary directory): the same work as the service with an `auditLog` configured.
    static let personalSignAuditedConcurrent = "service baseline: personal_sign with an audit line, 8 concurrent tasks"
    /// The same with the audit log a ledger (`ledger` configured): each record sealed with `seq` and `prev`,
    /// added to the Merkle tree, its actions and policy-set hash kept, and a checkpoint signed every 1,000
    /// records; against ``personalSignAuditedConcurrent`` its ratio is what the ledger costs (issue #39: within
    /// 10 %).
    static let personalSignLedgerConcurrent =
        "service: personal_sign with a ledger audit line (a checkpoint every 1,000), 8 concurrent tasks"
    /// The service's own work for one `personal_sign` POST, without the network: authentication, JSON-RPC,
    /// client checks, dispatch, the request log line, metrics (no audit log), one task; against
    /// ``personalSignOneTask`` its ratio is the service's overhead on top of the dispatcher.
    static let handlerOneTask = "service handler: personal_sign POST in process, one task"
    /// The same POST to a service whose policy file holds payments above 1 ether for two approvers
    /// (`approvalRules`): the request is not held, so against ``handlerOneTask`` its ratio is what the held
    /// path costs a call that is not held.
    static let handlerWithApprovalRuleOneTask =
        "service handler: personal_sign POST, an approval rule that does not hold it, one task"
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
    let handler = serviceHandler(key: key)
    let approvalHandler = serviceHandler(
        key: key,
        policies: [
            ApprovalRule(
                "large-payout",
                above: [.init(chain: ChainID(eip155: 2021), asset: .native, above: 1_000_000_000_000_000_000)],
                group: "treasury", required: 2)
        ])
    let request = HTTPServerRequest(
        method: "POST", target: "/",
        fields: [("content-type", "application/json"), ("authorization", "Bearer \(serviceBenchmarkToken)")],
        body: Array(
            (#"{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x68656c6c6f20776f726c64","#
                + "\"\(key.address.lowercased)\"]}").utf8))

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
            blackHole(spreadOverTasks(iterations) { _, _ in await personalSign(actions, with: dispatcher) })
        },
        Benchmark(
            name: ServiceCase.personalSignAuditedConcurrent, group: "service",
            baseline: ServiceCase.personalSignConcurrent
        ) { iterations in
            let auditLog = BenchmarkAuditLog()
            blackHole(
                spreadOverTasks(iterations) { task, call in
                    await auditedPersonalSign(
                        actions, with: dispatcher, auditLog: auditLog.log, requestID: "bench-\(task)-\(call)")
                })
            auditLog.remove()
        },
        Benchmark(
            name: ServiceCase.personalSignLedgerConcurrent, group: "service",
            baseline: ServiceCase.personalSignAuditedConcurrent
        ) { iterations in
            let auditLog = BenchmarkAuditLog(ledger: AuditLedgerSettings(signer: key, checkpointEvery: 1_000))
            blackHole(
                spreadOverTasks(iterations) { task, call in
                    await auditedPersonalSign(
                        actions, with: dispatcher, auditLog: auditLog.log, requestID: "bench-\(task)-\(call)",
                        keepsActions: true)
                })
            auditLog.remove()
        },
        Benchmark(name: ServiceCase.handlerOneTask, group: "service", baseline: ServiceCase.personalSignOneTask) {
            iterations in blackHole(post(request, to: handler, iterations: iterations))
        },
        Benchmark(
            name: ServiceCase.handlerWithApprovalRuleOneTask, group: "service", baseline: ServiceCase.handlerOneTask
        ) { iterations in blackHole(post(request, to: approvalHandler, iterations: iterations)) },
    ]
}

/// `request` POSTed `iterations` times, one after another; a byte of the answers, so the work is kept.
private func post(_ request: HTTPServerRequest, to handler: ServiceHTTPHandler, iterations: Int) -> UInt8 {
    runBlocking { () -> UInt8 in
        var accumulator: UInt8 = 0
        for _ in 0..<iterations {
            let response = await handler.handle(request)
            guard response.status == 200, response.body.count > 140 else {
                fatalError("service handler: HTTP \(response.status) \(response.body.count) bytes")
            }
            accumulator ^= response.body[response.body.count - 4]
        }
        return accumulator
    }
}

/// The bearer token of the in-process service.
private let serviceBenchmarkToken = "benchmark-token"

/// The service `signerkit serve` runs for a configuration with `key`, one client (and two approvers of
/// `treasury`) and no audit log or store, under `policies`, its log lines discarded.
private func serviceHandler(key: SoftwareKeySigner, policies: [any ActionPolicy] = []) -> ServiceHTTPHandler {
    let tokenHash = Hex.encode(SHA256.hash(Array(serviceBenchmarkToken.utf8)), prefix: false)
    func approver(_ name: String) -> String {
        let hash = Hex.encode(SHA256.hash(Array("token-of-\(name)".utf8)), prefix: false)
        return #"{"name": "\#(name)", "tokenSha256": "\#(hash)", "roles": ["approver"], "groups": ["treasury"]}"#
    }
    do {
        let configuration = try ServiceConfiguration(
            jsonText: """
                {"listen": "127.0.0.1:0", "keys": [{"keyFile": "unused.hex"}], "chainId": "eip155:2021",
                 "clients": [{"name": "bench", "tokenSha256": "\(tokenHash)"}, \(approver("alice")), \(approver("bob"))]}
                """, relativeTo: "/")
        let service = try SignerService(
            configuration: configuration, signers: [key], upstream: [:], policies: policies)
        return ServiceHTTPHandler(service: service, log: { line in blackHole(line.utf8.count) })
    } catch {
        fatalError("service benchmarks: cannot set up the service: \(error)")
    }
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

/// Makes `iterations` calls of `call(task, index)` from ``serviceBaselineTasks`` concurrent tasks (task t
/// makes iterations / 8 calls, the first iterations % 8 tasks one more); the calls' bytes combined.
private func spreadOverTasks(_ iterations: Int, _ call: @escaping @Sendable (Int, Int) async -> UInt8) -> UInt8 {
    runBlocking {
        await withTaskGroup(of: UInt8.self) { group in
            for task in 0..<serviceBaselineTasks {
                let share = iterations / serviceBaselineTasks + (task < iterations % serviceBaselineTasks ? 1 : 0)
                group.addTask {
                    var accumulator: UInt8 = 0
                    for index in 0..<share { accumulator ^= await call(task, index) }
                    return accumulator
                }
            }
            var combined: UInt8 = 0
            for await part in group { combined ^= part }
            return combined
        }
    }
}

/// A policy-set hash as a service's records carry it.
private let benchmarkPolicySet = MerkleHash.sha256(Array(#"{"allowedChains":["eip155:1"]}"#.utf8))

/// An ``AuditLog`` in a directory of its own under the temporary directory.
private final class BenchmarkAuditLog: Sendable {
    let directory: String
    let log: AuditLog

    init(ledger: AuditLedgerSettings? = nil) {
        var template = Array((FileManager.default.temporaryDirectory.path + "/signerkit-audit-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { fatalError("service benchmarks: cannot create a directory") }
        directory = String(cString: created)
        do { log = try AuditLog(path: directory + "/audit.jsonl", ledger: ledger) } catch {
            fatalError("service benchmarks: cannot open the audit log: \(error)")
        }
    }

    /// Deletes the log and its directory.
    func remove() {
        unlink(directory + "/audit.jsonl")
        rmdir(directory)
    }
}

/// One call as the service makes it with an audit log: prepare, sign, the call's record, its audit line
/// written and synced; a byte of the signature. `keepsActions`: the record keeps the actions and a policy-set
/// hash, as the service's records do with a ledger.
private func auditedPersonalSign(
    _ actions: [WalletRpcAction], with dispatcher: RpcDispatcher, auditLog: AuditLog, requestID: String,
    keepsActions: Bool = false
) async -> UInt8 {
    let started = ContinuousClock.now
    var record = CallRecord(client: "bench", method: "personal_sign")
    if keepsActions {
        record.actions = actions
        record.policySet = benchmarkPolicySet
    }
    let signed: SignedActions
    do {
        let prepared = try await dispatcher.prepare(actions: actions)
        record.note(prepared.requests)
        signed = try await dispatcher.sign(prepared)
        record.backends = prepared.backendNames
    } catch {
        fatalError("service baseline: personal_sign failed: \(error)")
    }
    guard case .signature(let signature)? = signed.outcomes.last, let result = signed.results.last else {
        fatalError("service baseline: personal_sign gave no signature")
    }
    record.noteResult(.string(result))
    record.duration = ContinuousClock.now - started
    guard await auditLog.append([record], requestID: requestID, at: Date()) else {
        fatalError("service baseline: the audit log could not be written")
    }
    return signature.s[31]
}
