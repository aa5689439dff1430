import AWSKMSSigner
import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport

/// The cases of the AWS KMS backend, on the local KMS of the tests (ministack behind the SigV4-checking proxy,
/// `scripts/kms-node`).
enum KMSCase {
    /// One `Sign` request as the client makes it (libcurl's SigV4, the JSON protocol, base64): the local KMS's
    /// own answer time, the baseline.
    static let rawSign = "kms raw Sign request"
    /// `AWSKMSKeySigner.sign(prehash:)`: the same request plus DER, low s and the recovery-id trial.
    static let signerSign = "kms signer sign(prehash:)"
    /// 100 `personal_sign` actions signed one after another (a `sign(prehash:)` each): the sequential baseline.
    static let oneAtATime = "kms 100 signatures, one at a time"
    /// The same 100 actions as one dispatcher batch: signatures in flight at once, each result verified.
    static let batch = "kms 100-action batch (concurrent)"
}

/// The KMS path's overhead over the local KMS's answer (signer vs raw request, target close to 1×: the DER
/// reading and two recoveries at most are microseconds against a round trip), and what concurrency buys a
/// 100-action batch over signing one at a time (as time per batch: lower is better). The local KMS is Python
/// on the same cores, so the batch ratio here is bounded by its CPU, not by round trips as against AWS.
///
/// Without the KMS venv (scripts/kms-node/install.sh) the cases are skipped with a note. Each case checks its
/// signatures once before timing.
func kmsBenchmarks() -> [Benchmark] {
    let names = [KMSCase.rawSign, KMSCase.signerSign, KMSCase.oneAtATime, KMSCase.batch]
    guard PKCS11Bench.isSelected(names) else {
        return [
            Benchmark(name: KMSCase.rawSign, group: "kms") { _ in },
            Benchmark(name: KMSCase.signerSign, group: "kms", baseline: KMSCase.rawSign) { _ in },
            Benchmark(name: KMSCase.oneAtATime, group: "kms") { _ in },
            Benchmark(name: KMSCase.batch, group: "kms", baseline: KMSCase.oneAtATime) { _ in },
        ]
    }
    let started = PKCS11Bench.blockOn { () -> Result<KMSBench, any Error> in
        do { return .success(try await KMSBench.start()) } catch { return .failure(error) }
    }
    let bench: KMSBench
    switch started {
    case .success(let value): bench = value
    case .failure(let error):
        print("kms benchmarks: skipped: \(error)")
        return []
    }
    if let failure = PKCS11Bench.blockOn({ await bench.selfCheck() }) {
        print("kms benchmarks: self-check FAILED, skipped (refusing to time incorrect code): \(failure)")
        return []
    }
    print("kms benchmarks: local KMS at \(bench.environment.kms.endpoint.absoluteString); self-check ok")
    return [
        Benchmark(name: KMSCase.rawSign, group: "kms") { iterations in
            blackHole(PKCS11Bench.blockOn { await bench.rawSignatures(iterations) })
        },
        Benchmark(name: KMSCase.signerSign, group: "kms", baseline: KMSCase.rawSign) { iterations in
            blackHole(PKCS11Bench.blockOn { await bench.signerSignatures(iterations) })
        },
        Benchmark(name: KMSCase.oneAtATime, group: "kms") { iterations in
            blackHole(PKCS11Bench.blockOn { await bench.sequentialBatches(iterations) })
        },
        Benchmark(name: KMSCase.batch, group: "kms", baseline: KMSCase.oneAtATime) { iterations in
            blackHole(PKCS11Bench.blockOn { await bench.dispatcherBatches(iterations) })
        },
    ]
}

/// The local KMS, one key, its signer and a dispatcher holding it.
final class KMSBench: Sendable {
    let environment: KMSEnvironment
    let client: AWSKMSClient
    let signer: AWSKMSKeySigner
    let dispatcher: RpcDispatcher
    let actions: [WalletRpcAction]
    let digests: [Digest32]

    private init(environment: KMSEnvironment, client: AWSKMSClient, signer: AWSKMSKeySigner) throws {
        self.environment = environment
        self.client = client
        self.signer = signer
        dispatcher = RpcDispatcher()
        try dispatcher.register(signer)
        let messages = (0..<100).map { Array("benchmark payment \($0)".utf8) }
        digests = messages.map { PersonalMessage.digest($0) }
        actions = messages.map {
            WalletRpcAction(
                chainId: ChainID(eip155: 8453), method: .personalSign,
                params: #"["\#(Hex.encode($0))","\#(signer.address.checksummed)"]"#)
        }
    }

    /// Starts the local KMS (stopped at exit by its parent-pid watch) and makes a key.
    static func start() async throws -> KMSBench {
        let environment = try await KMSEnvironment.start()
        let client = try environment.client()
        let keyID = try await environment.createKey()
        return try KMSBench(
            environment: environment, client: client,
            signer: try await AWSKMSKeySigner.load(keyID: keyID, client: client))
    }

    /// `nil` when a raw signature, a signer signature and a batch all verify; else what failed.
    func selfCheck() async -> String? {
        do {
            let der = try await client.signDigest(digests[0], keyID: signer.keyARN)
            let (r, s) = try ECDSA.signatureComponents(der: der)
            guard ECDSA.verify(prehash: digests[0], r: r, s: ECDSA.normalize(r: r, s: s).s, publicKey: signer.publicKey)
            else { return "a raw KMS signature does not verify" }
            let signature = try await signer.sign(prehash: digests[1])
            guard try ECDSA.recoverAddress(prehash: digests[1], signature: signature) == signer.address else {
                return "the signer's signature does not recover"
            }
            let results = try await dispatcher.sign(actions: actions).results
            guard results.count == actions.count else { return "the batch has \(results.count) results" }
        } catch {
            return "\(error)"
        }
        return nil
    }

    /// `n` raw `Sign` requests, one after another.
    func rawSignatures(_ n: Int) async -> Int {
        var bytes = 0
        for index in 0..<n {
            bytes += (try? await client.signDigest(digests[index % 100], keyID: signer.keyARN))?.count ?? 0
        }
        return bytes
    }

    /// `n` signer signatures, one after another.
    func signerSignatures(_ n: Int) async -> Int {
        var ids = 0
        for index in 0..<n { ids += Int((try? await signer.sign(prehash: digests[index % 100]))?.recoveryId ?? 0) }
        return ids
    }

    /// `n` times 100 signatures, one after another.
    func sequentialBatches(_ n: Int) async -> Int { await signerSignatures(100 * n) }

    /// `n` dispatcher batches of the 100 actions.
    func dispatcherBatches(_ n: Int) async -> Int {
        var count = 0
        for _ in 0..<n { count += (try? await dispatcher.sign(actions: actions).results.count) ?? 0 }
        return count
    }
}
