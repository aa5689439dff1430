import CPKCS11
import Dispatch
import EIP712
import EthereumPrimitives
import Foundation
import PKCS11Signer
import Secp256k1
import Synchronization

/// Names of the PKCS#11 cases.
enum PKCS11Case {
    /// `C_SignInit(CKM_ECDSA)` + `C_Sign` called straight through the module's function list, in
    /// a loop run like the signer cases' loops (see ``pkcs11Benchmarks()``): the token's own cost,
    /// the unit the signer is compared with.
    static let rawSign = "pkcs11 raw C_SignInit+C_Sign"
    /// The raw loop on two threads with a session each: how much parallelism the token and the
    /// machine offer right now (the ceiling for the two-session pool).
    static let rawSignTwoThreads = "pkcs11 raw C_SignInit+C_Sign, 2 threads"
    /// `PKCS11KeySigner.sign(prehash:)` of the Ronin order's EIP-712 digest, one signature after another.
    static let typedDataSign = "pkcs11 typed-data sign (Ronin Order)"
    /// Signatures requested concurrently from a signer limited to one session.
    static let poolOneSession = "pkcs11 pool throughput, one session"
    /// The same with two sessions: the ratio is the time per signature against one session.
    static let poolTwoSessions = "pkcs11 pool throughput, 2 sessions"
}

/// PKCS#11 signing on a throwaway SoftHSM2 token.
///
/// At start-up a token store is made in a temporary directory with `scripts/softhsm-token.sh`
/// (removed at exit), `SOFTHSM2_CONF` is set before the module is loaded, and the vector key is
/// imported. Without SoftHSM2 the cases are skipped with a note. Nothing is set up when the
/// command line selects no PKCS#11 case (or only lists them).
///
/// Ratios: the typed-data case is against the raw baseline (target ≤ 1.25×: the EIP-712 digest,
/// the session pool, low-s normalisation and the recovery-id check cost at most a quarter of a
/// token signature); the two-session pool is against the one-session pool, as time per signature
/// (target ≤ 0.67×, i.e. ≥ 1.5× the throughput). The raw loop on two threads shows the
/// parallelism the machine actually offers during the run (on a shared two-core machine, often
/// less than two cores).
///
/// Like every case with a baseline, each is sampled right after its baseline in every round of
/// the harness, so the two are measured back to back (a shared virtual machine's speed drifts).
///
/// The harness runs case bodies synchronously on the main thread. Async signing is bridged
/// honestly: each sample starts one detached task that performs all `n` iterations and the main
/// thread blocks until it finishes, so the bridge is paid once per sample and every iteration is
/// a real `await` of the signer, as an async caller would make it. The raw baseline's loop runs
/// the same way, in a detached task per sample: a sample is only a few signatures, and the
/// bridge, plus the move to another thread (whose core's caches are cold for the token's code),
/// costs several percent of a sample that has nothing to do with the signer. Run on the main
/// thread instead, the raw loop measures 4–6% faster here.
///
/// The signers are warmed up before anything is timed: each makes ``PKCS11Bench/warmUpSignatures``
/// checked signatures first (sessions open, code and caches warm, as in any long-lived signer).
func pkcs11Benchmarks() -> [Benchmark] {
    let names = [
        PKCS11Case.rawSign, PKCS11Case.typedDataSign, PKCS11Case.rawSignTwoThreads, PKCS11Case.poolOneSession,
        PKCS11Case.poolTwoSessions,
    ]
    guard PKCS11Bench.isSelected(names) else {
        // Listed or filtered out: register the names only; the bodies are never run.
        return [
            Benchmark(name: PKCS11Case.rawSign, group: "pkcs11") { _ in },
            Benchmark(name: PKCS11Case.typedDataSign, group: "pkcs11", baseline: PKCS11Case.rawSign) { _ in },
            Benchmark(name: PKCS11Case.rawSignTwoThreads, group: "pkcs11", baseline: PKCS11Case.rawSign) { _ in },
            Benchmark(name: PKCS11Case.poolOneSession, group: "pkcs11") { _ in },
            Benchmark(name: PKCS11Case.poolTwoSessions, group: "pkcs11", baseline: PKCS11Case.poolOneSession) { _ in },
        ]
    }
    let setup: PKCS11Bench.Setup
    do {
        setup = try PKCS11Bench.setUp()
    } catch {
        print("pkcs11 benchmarks: skipped: \(error)")
        return []
    }
    if let failure = setup.selfCheck() {
        print("pkcs11 benchmarks: self-check FAILED, skipped (refusing to time incorrect code): \(failure)")
        return []
    }
    print("pkcs11 benchmarks: SoftHSM2 token \"\(PKCS11Bench.tokenLabel)\" in \(setup.directory.path); self-check ok")

    let raw = setup.raw
    let secondRaw = setup.secondRaw
    let typedData = setup.typedData
    let sequential = setup.typedDataSigner
    let oneSession = setup.oneSessionSigner
    let twoSessions = setup.twoSessionSigner
    let digest = setup.digest

    return [
        Benchmark(name: PKCS11Case.rawSign, group: "pkcs11") { iterations in
            blackHole(PKCS11Bench.blockOn { raw.sign(iterations) })
        },
        Benchmark(name: PKCS11Case.typedDataSign, group: "pkcs11", baseline: PKCS11Case.rawSign) { iterations in
            blackHole(PKCS11Bench.typedDataSignatures(iterations, typedData: typedData, signer: sequential))
        },
        Benchmark(name: PKCS11Case.rawSignTwoThreads, group: "pkcs11", baseline: PKCS11Case.rawSign) { iterations in
            let half = iterations / 2
            let other = DispatchGroup()
            DispatchQueue.global().async(group: other) { blackHole(secondRaw.sign(half)) }
            blackHole(raw.sign(iterations - half))
            other.wait()
        },
        Benchmark(name: PKCS11Case.poolOneSession, group: "pkcs11") { iterations in
            blackHole(
                PKCS11Bench.blockOn {
                    await PKCS11Bench.concurrentSignatures(iterations, signer: oneSession, digest: digest)
                })
        },
        Benchmark(name: PKCS11Case.poolTwoSessions, group: "pkcs11", baseline: PKCS11Case.poolOneSession) {
            iterations in
            blackHole(
                PKCS11Bench.blockOn {
                    await PKCS11Bench.concurrentSignatures(iterations, signer: twoSessions, digest: digest)
                })
        },
    ]
}

/// Set-up and helpers of the PKCS#11 cases.
enum PKCS11Bench {
    /// The SoftHSM2 module.
    static let modulePath = PKCS11Module.softHSM2Path
    /// The token label.
    static let tokenLabel = "signerkit-bench"
    /// The key label.
    static let keyLabel = "bench-vector-key"
    /// Checked signatures each signer makes before timing.
    static let warmUpSignatures = 160

    /// The throwaway user PIN.
    static let pin = "signerkit-bench-pin"

    /// Everything the cases use.
    struct Setup {
        let directory: URL
        let raw: RawSigner
        let secondRaw: RawSigner
        let typedData: TypedData
        let digest: Digest32
        let oneSessionSigner: PKCS11KeySigner
        let twoSessionSigner: PKCS11KeySigner
        /// The typed-data case's own signer (one session): the pool cases' bursts do not touch it.
        let typedDataSigner: PKCS11KeySigner

        /// Checks both paths before anything is timed: the raw signature verifies (it recovers
        /// to the key with one of the recovery ids) and the signers' signatures recover to the
        /// vector address. `nil` when all is well.
        func selfCheck() -> String? {
            for signer in [raw, secondRaw] {
                _ = signer.sign(1)
                guard signer.failures.load(ordering: .relaxed) == 0 else {
                    return "the raw C_SignInit/C_Sign loop failed"
                }
                let bytes = signer.lastSignature
                guard let r = Bytes32(bytes[0..<32]), let s = Bytes32(bytes[32..<64]) else {
                    return "raw signature length"
                }
                let lowS = ECDSA.normalize(r: r, s: s).s
                let recovered = [UInt8(0), 1].contains { id in
                    guard let candidate = try? RecoverableSignature(r: r, s: lowS, recoveryId: id) else { return false }
                    return (try? ECDSA.recoverAddress(prehash: digest, signature: candidate))?.checksummed
                        == BenchmarkFixtures.address
                }
                guard recovered else { return "the raw signature does not recover to \(BenchmarkFixtures.address)" }
            }
            for signer in [oneSessionSigner, twoSessionSigner, typedDataSigner] {
                // Warm-up; every signature checked.
                let result = blockOn { () async -> String? in
                    for _ in 0..<PKCS11Bench.warmUpSignatures {
                        guard let signature = try? await signer.sign(prehash: digest) else { return "signer failed" }
                        let address = (try? ECDSA.recoverAddress(prehash: digest, signature: signature))?
                            .checksummed
                        guard address == BenchmarkFixtures.address else { return address ?? "nothing" }
                    }
                    return BenchmarkFixtures.address
                }
                guard result == BenchmarkFixtures.address else {
                    return "the signer's signature recovers to \(result ?? "nothing")"
                }
            }
            return nil
        }
    }

    /// Whether the command line selects any of `names` for timing (mirrors the driver's filter).
    static func isSelected(_ names: [String]) -> Bool {
        guard let options = try? BenchmarkOptions.parse(CommandLine.arguments.dropFirst()), !options.list, !options.help
        else {
            return false
        }
        return names.contains { options.selects(Benchmark(name: $0, group: "pkcs11") { _ in }) }
    }

    /// Makes the token store, loads SoftHSM2, logs in, imports the key and opens the signers.
    static func setUp() throws -> Setup {
        guard FileManager.default.isReadableFile(atPath: modulePath) else {
            throw SetupError("SoftHSM2 is not installed (\(modulePath) missing; apt-get install softhsm2)")
        }
        guard
            ProcessInfo.processInfo.environment["PATH"].map({ path in
                path.split(separator: ":").contains {
                    FileManager.default.isExecutableFile(atPath: "\($0)/softhsm2-util")
                }
            }) ?? FileManager.default.isExecutableFile(atPath: "/usr/bin/softhsm2-util")
        else {
            throw SetupError("softhsm2-util is not installed (apt-get install softhsm2)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "signerkit-bench-p11-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        cleanupPath.withLock { $0 = directory.path }
        atexit {
            if let path = PKCS11Bench.cleanupPath.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        }
        let pinFile = directory.appendingPathComponent("user.pin")
        try Data((pin + "\n").utf8).write(to: pinFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: pinFile.path)
        try runScript(directory: directory, pinFile: pinFile)

        // SoftHSM2 reads its configuration once, in C_Initialize (the first load).
        setenv("SOFTHSM2_CONF", directory.appendingPathComponent("softhsm2.conf").path, 1)
        let token = try PKCS11Module.load(path: modulePath).token(.label(tokenLabel))
        try token.login(pin: .file(path: pinFile.path))
        _ = try token.importPrivateKey(try PrivateKey(hex: BenchmarkFixtures.keyHex), label: keyLabel)

        guard let text = BenchmarkFixtures.roninOrderText else {
            throw SetupError("the ronin_order.json vector is missing")
        }
        let typedData = try TypedData(jsonText: text)
        let digest = try typedData.digest()
        return Setup(
            directory: directory, raw: try RawSigner(token: token, keyLabel: keyLabel, digest: digest),
            secondRaw: try RawSigner(token: token, keyLabel: keyLabel, digest: digest), typedData: typedData,
            digest: digest,
            oneSessionSigner: try token.signer(for: .label(keyLabel), maximumSessions: 1),
            twoSessionSigner: try token.signer(for: .label(keyLabel), maximumSessions: 2),
            typedDataSigner: try token.signer(for: .label(keyLabel), maximumSessions: 1))
    }

    /// `count` typed-data signatures one after another, each hashing the document (EIP-712) and
    /// awaiting `signer.sign`, in one detached task the calling thread waits for; returns a byte
    /// of each folded together.
    static func typedDataSignatures(_ count: Int, typedData: TypedData, signer: PKCS11KeySigner) -> UInt8 {
        blockOn { () async -> UInt8 in
            var accumulator: UInt8 = 0
            for _ in 0..<count {
                let digest = (try? typedData.digest()) ?? .zero
                accumulator ^= ((try? await signer.sign(prehash: digest))?.r ?? .zero)[0]
            }
            return accumulator
        }
    }

    /// `n` signatures requested at once; returns a byte of each folded together.
    static func concurrentSignatures(_ count: Int, signer: PKCS11KeySigner, digest: Digest32) async -> UInt8 {
        await withTaskGroup(of: UInt8.self) { group in
            for _ in 0..<count {
                group.addTask { ((try? await signer.sign(prehash: digest))?.r ?? .zero)[0] }
            }
            var accumulator: UInt8 = 0
            for await byte in group { accumulator ^= byte }
            return accumulator
        }
    }

    /// Runs `body` in a detached task and blocks the calling thread (the harness's main thread,
    /// which is not one of Swift's cooperative threads) until it returns.
    static func blockOn<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let value = await body()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        guard let value = result.withLock({ $0.take() }) else { fatalError("blockOn: the task produced no result") }
        return value
    }

    /// `scripts/softhsm-token.sh --dir … --pin-file … --label signerkit-bench`.
    private static func runScript(directory: URL, pinFile: URL) throws {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/softhsm-token.sh")
        let log = directory.appendingPathComponent("softhsm-token.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            script.path, "--dir", directory.path, "--pin-file", pinFile.path, "--module", modulePath, "--label",
            tokenLabel,
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        while process.isRunning { usleep(10_000) }  // not waitUntilExit: it can spin forever on Linux Foundation
        guard process.terminationStatus == 0 else {
            throw SetupError("softhsm-token.sh failed: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        }
    }

    /// The store directory removed at exit.
    static let cleanupPath = Mutex<String?>(nil)

    /// Why the cases were skipped.
    struct SetupError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// `C_SignInit(CKM_ECDSA)` + `C_Sign` through the module's own function list, on a session of its
/// own: the token's cost with no SignerKit code in between.
///
/// The module is the one `PKCS11Module.load` already initialised (and logged in to the token;
/// login is per application, so this session is logged in too): `dlopen` of the same path
/// returns the loaded library, whose `C_GetFunctionList` gives its function table. The digest
/// and signature buffers are allocated once, so the loop allocates nothing.
final class RawSigner: @unchecked Sendable {
    // @unchecked Sendable: the function pointers and handles are immutable after init; the
    // session, mechanism and buffers are used by one thread at a time (each benchmark thread has
    // its own RawSigner, and the harness never overlaps samples).
    private let signInit: CK_C_SignInit
    private let signFunction: CK_C_Sign
    private let session: CK_SESSION_HANDLE
    private let key: CK_OBJECT_HANDLE
    private let mechanism: UnsafeMutablePointer<CK_MECHANISM>
    private let digest: UnsafeMutablePointer<UInt8>
    private let signature: UnsafeMutablePointer<UInt8>

    /// Calls that did not return `CKR_OK` (the self-check requires none).
    let failures = Atomic<Int>(0)

    init(token: PKCS11Token, keyLabel: String, digest: Digest32) throws {
        guard let handle = dlopen(token.module.path, RTLD_NOW | RTLD_NOLOAD) else {
            throw PKCS11Bench.SetupError("\(token.module.path) is not loaded")
        }
        guard let symbol = dlsym(handle, "C_GetFunctionList") else {
            throw PKCS11Bench.SetupError("no C_GetFunctionList")
        }
        var list: CK_FUNCTION_LIST_PTR?
        guard sk_pkcs11_get_function_list(symbol, &list) == CKR_OK, let functions = list?.pointee,
            let openSession = functions.C_OpenSession, let findInit = functions.C_FindObjectsInit,
            let find = functions.C_FindObjects, let findFinal = functions.C_FindObjectsFinal,
            let signInit = functions.C_SignInit, let sign = functions.C_Sign
        else { throw PKCS11Bench.SetupError("unusable function list") }
        self.signInit = signInit
        signFunction = sign

        var session = CK_SESSION_HANDLE(0)
        guard openSession(CK_SLOT_ID(token.slotID), CK_FLAGS(CKF_SERIAL_SESSION), nil, nil, &session) == CKR_OK else {
            throw PKCS11Bench.SetupError("C_OpenSession failed")
        }
        self.session = session

        var keyClass = CK_OBJECT_CLASS(CKO_PRIVATE_KEY)
        var label = Array(keyLabel.utf8)
        var found = CK_OBJECT_HANDLE(0)
        var count = CK_ULONG(0)
        let rv: CK_RV = withUnsafeMutableBytes(of: &keyClass) { classBytes in
            label.withUnsafeMutableBytes { labelBytes in
                var template = [
                    CK_ATTRIBUTE(
                        type: CK_ATTRIBUTE_TYPE(CKA_CLASS), pValue: classBytes.baseAddress,
                        ulValueLen: CK_ULONG(classBytes.count)),
                    CK_ATTRIBUTE(
                        type: CK_ATTRIBUTE_TYPE(CKA_LABEL), pValue: labelBytes.baseAddress,
                        ulValueLen: CK_ULONG(labelBytes.count)),
                ]
                let initRV = template.withUnsafeMutableBufferPointer {
                    findInit(session, $0.baseAddress, CK_ULONG($0.count))
                }
                guard initRV == CKR_OK else { return initRV }
                let findRV = find(session, &found, 1, &count)
                let finalRV = findFinal(session)
                return findRV != CKR_OK ? findRV : finalRV
            }
        }
        guard rv == CKR_OK, count == 1 else { throw PKCS11Bench.SetupError("key \(keyLabel) not found (rv \(rv))") }
        key = found
        mechanism = .allocate(capacity: 1)
        mechanism.initialize(
            to: CK_MECHANISM(mechanism: CK_MECHANISM_TYPE(CKM_ECDSA), pParameter: nil, ulParameterLen: 0))
        self.digest = .allocate(capacity: 32)
        self.digest.initialize(from: digest.bytes, count: 32)
        signature = .allocate(capacity: 64)
        signature.initialize(repeating: 0, count: 64)
    }

    deinit {
        mechanism.deallocate()
        digest.deallocate()
        signature.deallocate()
    }

    /// `count` raw signatures of the digest; returns their first bytes folded together.
    func sign(_ count: Int) -> UInt8 {
        var accumulator: UInt8 = 0
        for _ in 0..<count {
            var length = CK_ULONG(64)
            guard signInit(session, mechanism, key) == CKR_OK,
                signFunction(session, digest, 32, signature, &length) == CKR_OK,
                length == 64
            else {
                failures.add(1, ordering: .relaxed)
                continue
            }
            accumulator ^= signature[0]
        }
        return accumulator
    }

    /// The last signature made (raw r‖s), for the self-check.
    var lastSignature: [UInt8] { Array(UnsafeBufferPointer(start: signature, count: 64)) }
}
