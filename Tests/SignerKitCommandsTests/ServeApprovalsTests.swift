import EthereumPrimitives
import Foundation
import SecureMemory
import SignerKitCurl
import SignerKitTestSupport
import Testing

/// Held requests in `signerkit serve` as a process: a call held, one approval, the process killed (SIGKILL);
/// a new process on the same store finds the request with its approval, the second approval signs it, once.
@Suite("signerkit serve with approvals")
struct ServeApprovalsTests {
    let transport = CurlHTTPTransport()

    static func token(_ name: String) -> String { "serve-approvals-\(name)-41d" }

    /// The clients: `app` asks, `alice` and `bob` approve for `treasury`.
    static var clients: String {
        let entries = ["app", "alice", "bob"].map { name in
            let hash = Hex.encode(SHA256.hash(Array(token(name).utf8)), prefix: false)
            let roles = name == "app" ? "" : #", "roles": ["approver"], "groups": ["treasury"]"#
            return #"{"name": "\#(name)", "tokenSha256": "\#(hash)"\#(roles)}"#
        }
        return "[" + entries.joined(separator: ", ") + "]"
    }

    /// One call as client `name`.
    func call(_ service: ServiceProcess, as name: String, _ method: String, _ params: String) async throws -> JSONValue
    {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#
        let request = HTTPRequest(
            method: "POST", url: service.url,
            headers: [
                HTTPHeader("Content-Type", "application/json"),
                HTTPHeader("Authorization", "Bearer \(Self.token(name))"),
            ],
            body: Array(body.utf8), timeout: .seconds(30))
        return try JSONValue(parsing: try await transport.send(request).body)
    }

    @Test("held, approved once, killed; restarted on the same store, the second approval signs it once")
    func killedWithARequestHeld() async throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(
            "policy.json", #"{"approvalRules": [{"name": "every-signature", "group": "treasury", "required": 2}]}"#)
        _ = try directory.write("hook.secret", "whsec-serve-test\n")
        let config = try ServeTests.config(
            directory,
            #", "policyFile": "policy.json", "approvals": {"webhook": {"url": "http://127.0.0.1:9/hook", "secretFile": "hook.secret"}}"#,
            clients: Self.clients)
        let first = try await ServiceProcess.start(config: config)
        let held = try await call(first, as: "app", "personal_sign", #"["0x68656c6c6f", "\#(Actions.address)"]"#)
        #expect(held["error"]?["code"] == .number("-32010"), "\(held.serialized)")
        let id = try #require(held["error"]?["data"]?["requestId"]?.stringValue)
        let approved = try await call(first, as: "alice", "signerkit_approve", #"["\#(id)"]"#)
        #expect(approved["result"]?["approvals"] == .array(["alice"]))
        first.send(signal: SIGKILL)
        #expect(await first.awaitExit(within: .seconds(15))?.reason == .uncaughtSignal)

        let second = try await ServiceProcess.start(config: config)
        let status = try await call(second, as: "app", "signerkit_requestStatus", #"["\#(id)"]"#)
        #expect(status["result"]?["status"]?.stringValue == "held")
        #expect(status["result"]?["approvals"] == .array(["alice"]))
        let signed = try await call(second, as: "bob", "signerkit_approve", #"["\#(id)"]"#)
        #expect(signed["result"]?["status"]?.stringValue == "signed", "\(signed.serialized)")
        let signature = try #require(signed["result"]?["result"]?.stringValue)
        expectSuccess(
            await signerkit(["recover", "message", "--hex", "0x68656c6c6f", "--signature", signature]),
            [Actions.address])
        // Asked again, by the caller with a long-poll: the same signature, at once.
        let polled = try await call(second, as: "app", "signerkit_requestStatus", #"["\#(id)", {"waitMs": 20000}]"#)
        #expect(polled["result"]?["result"]?.stringValue == signature)
        #expect(await second.stop() == 0)
    }
}
