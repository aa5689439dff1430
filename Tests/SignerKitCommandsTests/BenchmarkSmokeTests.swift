import EthereumPrimitives
import Foundation
import SignerKitTestSupport
import Testing

/// The benchmark executable (built next to this test bundle) runs its self-checks, measures, prints the
/// table and writes JSON. Debug-build timings mean nothing; this checks the harness, not the numbers.
@Suite("benchmark executable: a quick run end to end")
struct BenchmarkSmokeTests {
    static let url: URL? = {
        let url = Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("SignerKitBenchmarks")
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }()

    @Test("--quick --filter: self-checks pass, every selected case and its baseline get a row and a JSON entry")
    func quickRun() async throws {
        let executable = try #require(Self.url, "SignerKitBenchmarks is built with the tests")
        let directory = try TemporaryDirectory()
        let json = directory.path("results.json")
        let outPath = try directory.write("stdout", "")
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--quick", "--filter", "keccak256", "--filter", "compiled schema", "--json", json]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = FileHandle.nullDevice
        try await ChildProcess.run(process)
        await waitForExit(process)
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let output = try String(contentsOfFile: outPath, encoding: .utf8)
        #expect(output.contains("self-check ok"))
        for name in [
            "keccak256 32 B", "eip712 digest, Ronin Order from a compiled schema", "keccak-f1600 (C reference -O3)",
        ] {
            #expect(output.contains(name), "no row for \(name)")
        }
        let results = try JSONValue(parsing: try String(contentsOfFile: json, encoding: .utf8))
        let names = (results["cases"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        #expect(names.contains("eip712 digest, Ronin Order from a compiled schema"))
        #expect(names.contains("keccak-f1600 (C reference -O3)"))
    }
}
