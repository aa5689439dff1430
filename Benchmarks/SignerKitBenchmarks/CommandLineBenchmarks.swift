import Dispatch
import Foundation
import KeccakReference
import SignerKitCommands
import Synchronization

/// Names of the command-line cases.
enum CommandLineCase {
    /// How many lines the `--jsonl` file has.
    static let lines = 20_000
    static let oneThread = "cli typed-data hash --jsonl, 20,000 Ronin lines, --threads 1"
    static let twoThreads = "cli typed-data hash --jsonl, 20,000 Ronin lines, --threads 2"
    static let referenceOneThread = "baseline: C reference keccak-f1600 ×20,000, one thread"
    static let referenceTwoThreads = "baseline: C reference keccak-f1600 ×20,000, two threads"
}

/// `signerkit typed-data hash --jsonl FILE` run in process (``SignerKitCommandLine/run(_:io:)``, the code
/// `main` runs) over a file of 20,000 identical Ronin Order lines, output discarded:
/// - with `--threads 1`, per line against the in-process "digest from JSON text" case (goal ≤ 1.15×);
/// - with `--threads 2`, against `--threads 1` (goal ≤ 0.56×, i.e. ≥ 1.8× the throughput), next to what
///   the machine gives two threads of pure C work in the same run (the C reference permutation, the same
///   total work split over two threads, against one thread).
func commandLineBenchmarks() -> [Benchmark] {
    // Written on first use (warm-up), so runs that do not select these cases do not write 30 MB.
    let file = RoninLinesFile()
    let cores = 2
    let referenceLanes = ScratchBuffer<UInt64>(repeating: 0, count: 25 * cores)
    fillPseudoRandom(referenceLanes.buffer, seed: 3)
    // The closures hold the buffer itself, which keeps it alive as long as they are.
    let lanes = SharedLanes(referenceLanes)
    return [
        Benchmark(
            name: CommandLineCase.oneThread, group: "cli", baseline: EIP712Case.fromJSON,
            unitsPerIteration: Double(CommandLineCase.lines)
        ) { iterations in
            blackHole(runHash(file.path, threads: 1, iterations: iterations))
        },
        Benchmark(name: CommandLineCase.twoThreads, group: "cli", baseline: CommandLineCase.oneThread) {
            iterations in
            blackHole(runHash(file.path, threads: 2, iterations: iterations))
        },
        Benchmark(name: CommandLineCase.referenceOneThread, group: "cli") { iterations in
            for _ in 0..<iterations {
                for _ in 0..<CommandLineCase.lines { ref_keccakf1600(lanes.pointer) }
            }
            blackHole(lanes.pointer.pointee)
        },
        Benchmark(
            name: CommandLineCase.referenceTwoThreads, group: "cli", baseline: CommandLineCase.referenceOneThread
        ) { iterations in
            for _ in 0..<iterations {
                DispatchQueue.concurrentPerform(iterations: cores) { part in
                    let state = lanes.pointer + 25 * part
                    for _ in 0..<(CommandLineCase.lines / cores) { ref_keccakf1600(state) }
                }
            }
            blackHole(lanes.pointer.pointee)
        },
    ]
}

/// Runs the command `iterations` times; the number of output bytes (checked: one digest line per line).
private func runHash(_ file: String, threads: Int, iterations: Int) -> Int {
    runBlocking { () -> Int in
        var total = 0
        for _ in 0..<iterations {
            let io = DiscardingIO()
            let status = await SignerKitCommandLine.run(
                ["typed-data", "hash", "--jsonl", "--threads", "\(threads)", file], io: io)
            let expected = CommandLineCase.lines * 67
            guard status == 0, io.bytes == expected else {
                fatalError("cli benchmark: status \(status), \(io.bytes) bytes written, \(expected) expected")
            }
            total += io.bytes
        }
        return total
    }
}

/// The 20,000-line file, written in the system's temporary directory on first use and removed at exit.
private final class RoninLinesFile: @unchecked Sendable {
    // @unchecked Sendable: `path` is written once, under the lock, and only read afterwards.
    private let lock = NSLock()
    private var written: String?

    /// The file's path (written now if it is not yet).
    var path: String {
        lock.lock()
        defer { lock.unlock() }
        if let written { return written }
        guard let text = BenchmarkFixtures.roninOrderText else {
            fatalError("cli benchmarks: the ronin_order.json vector is missing")
        }
        let line = text.replacingOccurrences(of: "\n", with: "")
        let path = Self.location
        let contents = String(repeating: line + "\n", count: CommandLineCase.lines)
        guard FileManager.default.createFile(atPath: path, contents: Data(contents.utf8)) else {
            fatalError("cli benchmarks: cannot write \(path)")
        }
        written = path
        atexit { try? FileManager.default.removeItem(atPath: RoninLinesFile.location) }
        return path
    }

    /// One file per benchmark process.
    static var location: String {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "signerkit-bench-ronin-\(ProcessInfo.processInfo.processIdentifier).jsonl"
        ).path
    }
}

/// The reference loops' lanes, shared by the two threads of the concurrent loop (each uses its own 25).
private struct SharedLanes: @unchecked Sendable {
    let storage: ScratchBuffer<UInt64>
    init(_ storage: ScratchBuffer<UInt64>) { self.storage = storage }
    var pointer: UnsafeMutablePointer<UInt64> { storage.pointer }
}

/// Standard output counted and discarded; no standard input.
private final class DiscardingIO: CommandIO {
    private let written = Atomic<Int>(0)
    let environment: [String: String] = [:]
    var bytes: Int { written.load(ordering: .relaxed) }
    func readStandardInput() throws -> [UInt8] { [] }
    func readStandardInputLine() throws -> [UInt8]? { nil }
    func writeStandardOutput(_ text: String) { written.add(text.utf8.count, ordering: .relaxed) }
    func writeStandardError(_ text: String) {}
}
