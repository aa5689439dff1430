import EthereumPrimitives
import Foundation
import SignerKitCurl
import SignerKitTestSupport
import Testing

@testable import SignerKitCommands

/// `signerkit waypoint authorize --jwks …` against `signerkit waypoint simulate-wallet --auto approve`, both in
/// process, the browser's part played by the libcurl client (the request link, the wallet's redirect, the
/// callback).
@Suite("waypoint authorize: verified ID tokens, identity-only scopes, PKCE")
struct WaypointSignInCommandTests {
    @Test("--jwks: identity verified; --pkce: code exchanged; no wallet scope: no address; wrong --issuer: exit 65")
    func signIn() async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", TestKeys.alphaHex)
        let wallet = CapturedIO()
        // The wallet's lifetime, not a wait: it serves for the rest of the run (a loaded one included) and nobody
        // waits for its end.
        let simulator = Task {
            await SignerKitCommandLine.run(
                ["waypoint", "simulate-wallet", "--key-file", key, "--auto", "approve", "--exit-after", "600"],
                io: wallet)
        }
        _ = simulator
        let origin = try await Self.line(after: "listening: ") { wallet.output }
        let base = [
            "waypoint", "authorize", "--origin", origin, "--client-id", "cli-test-client", "--jwks",
            // The command's own wait for its callback: never the bound (authorize(_:) bounds the run on the
            // pool's progress), only what the command needs to be given.
            "\(origin)/.well-known/jwks.json", "--timeout", "86400",
        ]

        let verified = try await Self.authorize(base)
        #expect(verified.status == 0, "\(verified)")
        let output = try JSONValue(parsing: verified.stdout)
        #expect(output["address"]?.stringValue == TestKeys.alphaAddress, "\(verified)")
        #expect(output["identity"]?["aud"] != nil, "\(verified)")
        #expect(output["identity"]?["iss"]?.stringValue == origin, "\(verified)")

        let pkce = try await Self.authorize(base + ["--pkce", "--scope", "openid"])
        #expect(pkce.status == 0, "\(pkce)")
        let identityOnly = try JSONValue(parsing: pkce.stdout)
        #expect(identityOnly["address"] == nil, "\(pkce)")
        #expect(identityOnly["identity"]?["sub"] != nil, "\(pkce)")

        // A refused token: exit 65, nothing on stdout, and after the "open:" line one error naming the check.
        let impostor = try await Self.authorize(base + ["--issuer", "https://issuer.example"])
        #expect(impostor.status == ExitCode.invalidInput.rawValue, "\(impostor)")
        #expect(impostor.stdout.isEmpty, "\(impostor)")
        #expect(impostor.stderrLines.count == 2, "\(impostor)")
        #expect(impostor.stderrLines.last?.hasPrefix("error: ID token refused (iss)") == true, "\(impostor)")
    }

    /// Runs `waypoint authorize`, opens the link it announces and follows the wallet's redirect to the
    /// command's loopback callback; the command's result.
    static func authorize(_ arguments: [String]) async throws -> CommandResult {
        let io = CapturedIO()
        let run = Task { await SignerKitCommandLine.run(arguments, io: io) }
        let link = try await line(after: "open: ") { io.error }
        var current = link
        for _ in 0..<4 {
            guard let url = URL(string: current) else { break }
            var request = HTTPRequest(method: "GET", url: url, timeout: .seconds(30))
            request.deliversRedirects = true
            // The answers need this process's cooperative pool: bounded on its progress, not the wall clock.
            let response = try await RealTime.send(request, within: .seconds(30))
            guard (300..<400).contains(response.status), let location = response.header("Location") else { break }
            current = URL(string: location, relativeTo: url)?.absoluteString ?? location
        }
        guard let status = await RealTime.value(of: run, within: .seconds(30)) else {
            run.cancel()
            throw FixtureError(description: "waypoint authorize did not end within the bound")
        }
        return CommandResult(status: status, stdout: io.output, stderr: io.error)
    }

    /// The rest of the first line of `text()` that starts with `prefix`, waiting up to 30 s for it (a hang bound).
    static func line(after prefix: String, _ text: @Sendable () -> String) async throws -> String {
        let found = await RealTime.first(within: .seconds(30)) {
            text().split(separator: "\n").first(where: { $0.hasPrefix(prefix) }).map {
                String($0.dropFirst(prefix.count))
            }
        }
        if let found { return found }
        throw FixtureError(description: "no line starting with \(prefix.debugDescription) within 30 s")
    }
}
