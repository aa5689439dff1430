import Foundation
import SignerKitTestSupport
import Testing

/// A fatal signal sent from outside (systemd's watchdog sends SIGABRT) ends `signerkit serve` with that
/// signal, after one short line and no crash report holding memory contents.
@Suite(
    "signerkit ends on fatal signals",
    .enabled(if: Binary.url != nil, "the signerkit executable is not next to the test bundle"))
struct FatalSignalTests {
    @Test(
        "SIGABRT, SIGSEGV, SIGBUS or SIGILL from outside ends serve with that signal",
        arguments: [
            SIGABRT, SIGSEGV, SIGBUS, SIGILL,
        ])
    func fatalSignalEndsServe(_ number: Int32) async throws {
        let directory = try TemporaryDirectory()
        let service = try await ServiceProcess.start(config: try ServeTests.config(directory))
        let before = try String(contentsOfFile: service.stderrPath, encoding: .utf8).utf8.count
        service.send(signal: number)
        // A bound that only ends a hang: the process exits as soon as the signal is delivered.
        let ended = try #require(await service.awaitExit(within: .seconds(30)), "still serving after signal \(number)")
        #expect(ended.reason == .uncaughtSignal && ended.status == number, "\(ended)")
        let stderr = try String(contentsOfFile: service.stderrPath, encoding: .utf8)
        let added = String(stderr.utf8.dropFirst(before)) ?? ""
        #expect(
            added
                == "signerkit: fatal signal, exiting (set SIGNERKIT_CRASH_REPORT=full for a full report when debugging)\n",
            "no crash report: \(added.prefix(300))")
    }
}
