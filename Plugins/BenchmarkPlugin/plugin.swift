import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory benchmark [options]`
///
/// Builds the `SignerKitBenchmarks` executable (the root package's implicit product: it is not declared
/// in `products`, so no package depending on SignerKit sees it) in release mode, runs it with its output
/// streamed to the console, and has it write the results as JSON to `.benchmarks/results.json` in the package directory.
/// Every argument after `benchmark` is forwarded to the executable (`--filter SUBSTRING`, `--quick`,
/// `--list`, `--json PATH` to write somewhere else; relative paths are relative to the package directory).
@main
struct BenchmarkPlugin: CommandPlugin {
    private static let product = "SignerKitBenchmarks"

    /// Entry point called by SwiftPM.
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let packageDirectory = context.package.directoryURL

        log("Building \(Self.product) (release)…")
        let result = try packageManager.build(
            .product(Self.product),
            parameters: .init(configuration: .release, logging: .concise))
        guard result.succeeded else {
            log(result.logText)
            throw BenchmarkPluginError.buildFailed
        }
        guard
            let executable = result.builtArtifacts.first(where: {
                $0.kind == .executable && $0.url.lastPathComponent == Self.product
            })
        else {
            throw BenchmarkPluginError.executableNotFound(result.builtArtifacts.map(\.url.path))
        }

        var forwarded = arguments
        if !arguments.contains(where: { $0 == "--json" || $0.hasPrefix("--json=") }) {
            let jsonURL = packageDirectory.appendingPathComponent(".benchmarks", isDirectory: true)
                .appendingPathComponent("results.json", isDirectory: false)
            forwarded += ["--json", jsonURL.path]
        }

        log("Running \(executable.url.path) \(forwarded.joined(separator: " "))")
        let process = Process()
        process.executableURL = executable.url
        process.arguments = forwarded
        process.currentDirectoryURL = packageDirectory
        // stdout/stderr are inherited: the output reaches the console as it is written.
        try process.run()
        // Not waitUntilExit: on Linux Foundation it can spin forever under load.
        while process.isRunning { usleep(50_000) }

        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw BenchmarkPluginError.benchmarkFailed(
                status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal)
        }
    }

    private func log(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// Why the benchmark command failed.
enum BenchmarkPluginError: Error, CustomStringConvertible {
    case buildFailed
    case executableNotFound([String])
    case benchmarkFailed(status: Int32, signaled: Bool)

    var description: String {
        switch self {
        case .buildFailed:
            return "building SignerKitBenchmarks in release mode failed (log above)"
        case .executableNotFound(let artifacts):
            return "the build produced no SignerKitBenchmarks executable; artifacts: \(artifacts)"
        case .benchmarkFailed(let status, let signaled):
            return signaled
                ? "SignerKitBenchmarks was killed by signal \(status)"
                : "SignerKitBenchmarks exited with status \(status)"
        }
    }
}
