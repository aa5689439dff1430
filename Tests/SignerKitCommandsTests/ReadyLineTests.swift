import Foundation
import SignerKitCurl
import SignerKitSupport
import SignerKitTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `pay serve-local` and `waypoint simulate-wallet` announce themselves on standard error the way `serve` does,
/// with one line `listening http://HOST:PORT`, written once they accept connections.
@Suite(
    "Ready lines of the long-running commands",
    .enabled(if: Binary.url != nil, "the signerkit executable is not next to the test bundle"))
struct ReadyLineTests {
    /// Starts `signerkit arguments` (stdout and stderr to files), returns its ready line's origin once it
    /// wrote one, then stops it.
    func readyOrigin(_ arguments: [String]) async throws -> String {
        let directory = try TemporaryDirectory()
        let errPath = try directory.write("stderr", "")
        let process = Process()
        process.executableURL = Binary.url
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: try directory.write("stdout", "")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try await ChildProcess.run(process)
        // The child starts at the machine's pace; the bound only ends a hang.
        let line = await RealTime.first(within: .seconds(30)) { () -> String? in
            let errors = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            return errors.split(separator: "\n").first { $0.hasPrefix("listening ") }.map(String.init)
        }
        // Written once it accepts connections: the origin answers at once.
        let origin = line.map { String($0.dropFirst("listening ".count)) }
        var answer: HTTPResponse?
        if let origin, let url = URL(string: origin + "/") {
            answer = try? await CurlHTTPTransport().send(HTTPRequest(method: "GET", url: url, timeout: .seconds(30)))
        }
        kill(process.processIdentifier, SIGKILL)
        await waitForExit(process, killAfter: .seconds(5))
        let ready = try #require(origin, "no ready line")
        #expect(ready.wholeMatch(of: /http:\/\/127\.0\.0\.1:[1-9][0-9]*/) != nil, "\(ready)")
        #expect(answer != nil, "\(ready) did not answer")
        return ready
    }

    @Test("pay serve-local: listening http://127.0.0.1:PORT on standard error")
    func payServeLocal() async throws {
        _ = try await readyOrigin(["pay", "serve-local", "--port", "0"])
    }

    @Test("waypoint simulate-wallet: listening http://127.0.0.1:PORT on standard error")
    func simulateWallet() async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", TestKeys.alphaHex)
        _ = try await readyOrigin(["waypoint", "simulate-wallet", "--key-file", key, "--exit-after", "120"])
    }
}
