import EthereumPrimitives
import Foundation
import SecureMemory
import SignerKit
import SignerKitCurl
import SignerKitHTTPServer
import SignerKitSQLite
import SignerKitService
import SignerKitTestSupport
import Synchronization
import Testing

/// Held requests across restarts (a new service instance on the same SQLite files: nothing lost, nothing signed
/// twice, an approval whose signer died signed once by the sweep) and the webhook (its HMAC signature checked by
/// Python's `hmac`, a failed delivery retried on the injected clock).
@Suite("Approvals across restarts, and the webhook")
struct ApprovalsRestartWebhookTests {
    @Test("restart with requests held: the approvals stay, the quorum completes on the new instance, signed once")
    func restart() async throws {
        let first = try await ApprovalsService.start()
        let before = try await first.minedCount()
        let waiting = try #require(
            try await first.pay(ApprovalsService.ether.multiplied(by: 2)!)["error"]?["data"]?["requestId"]?.stringValue)
        let orphaned = try #require(
            try await first.pay(ApprovalsService.ether.multiplied(by: 3)!)["error"]?["data"]?["requestId"]?.stringValue)
        _ = try await first.call("alice", "signerkit_approve", #"["\#(waiting)"]"#)
        _ = try await first.call("alice", "signerkit_approve", #"["\#(orphaned)"]"#)
        // `orphaned` gets its second approval, then the instance dies before signing it (the store is written as
        // the approval call writes it; no signing follows).
        let store = try SQLiteHeldRequestStore(path: first.directory.appendingPathComponent("state.sqlite").path)
        let bob = Approver(name: "bob", groups: ["treasury"])
        let approved = try await store.update(id: orphaned) {
            $0.deciding(.approve(digest: nil), by: bob, at: Int64(Date().timeIntervalSince1970))
        }
        #expect(approved.status == .approved)

        let second = try await ApprovalsService.start(directory: first.directory, node: first.node)
        let status = try await second.call("payouts", "signerkit_requestStatus", #"["\#(waiting)"]"#)
        #expect(status["result"]?["status"]?.stringValue == "held")
        #expect(status["result"]?["approvals"] == .array(["alice"]))
        let signed = try await second.call("bob", "signerkit_approve", #"["\#(waiting)"]"#)
        #expect(signed["result"]?["status"]?.stringValue == "signed", "\(signed.serialized)")
        #expect(try await second.minedCount() == before + 1)

        // The sweep signs the orphaned approval once; a second sweep, or a third instance's, finds nothing.
        #expect(await second.service.sweepHeldRequests() == (expired: 0, signed: 1))
        #expect(await second.service.sweepHeldRequests() == (expired: 0, signed: 0))
        let third = try await ApprovalsService.start(directory: first.directory, node: first.node)
        #expect(await third.service.sweepHeldRequests() == (expired: 0, signed: 0))
        let swept = try await third.call("payouts", "signerkit_requestStatus", #"["\#(orphaned)"]"#)
        #expect(swept["result"]?["status"]?.stringValue == "signed")
        #expect(try await third.minedCount() == before + 2)
        #expect(second.audit.records.contains { $0.heldRequest == orphaned && $0.resultHash != nil })
    }

    @Test("the webhook posts the final status with an HMAC-SHA256 signature Python verifies; a failure is retried")
    func webhook() async throws {
        let (deliveries, delivered) = AsyncStream.makeStream(of: (String, [UInt8]).self)
        let attempts = Atomic<Int>(0)
        let receiver = try HTTPServer { request in
            // The first delivery fails: the webhook retries after its back-off on the injected clock.
            let attempt = attempts.add(1, ordering: .relaxed).newValue
            delivered.yield((request.fields.first { $0.name == "signerkit-signature" }?.value ?? "", request.body))
            return HTTPServerResponse(status: attempt == 1 ? 503 : 204)
        }
        var secretBytes = Array("whsec-approvals-test-3f9".utf8)
        let clock = ManualClock()
        let webhook = ApprovalWebhook(
            url: try #require(URL(string: receiver.baseURLString + "/hooks/signerkit")),
            secret: SecureBytes(wiping: &secretBytes), transport: CurlHTTPTransport.shared, clock: clock)
        let service = try await ApprovalsService.start(webhook: webhook)
        let id = try #require(
            try await service.pay(ApprovalsService.ether.multiplied(by: 2)!)["error"]?["data"]?["requestId"]?
                .stringValue)
        _ = try await service.call("carol", "signerkit_reject", #"["\#(id)", "not today"]"#)

        var iterator = deliveries.makeAsyncIterator()
        let failed = try #require(await iterator.next())
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        let (header, body) = try #require(await iterator.next())
        #expect(failed.1 == body)
        let posted = try JSONValue(parsing: body)
        #expect(posted["requestId"]?.stringValue == id)
        #expect(posted["status"]?.stringValue == "rejected")
        #expect(posted["rejection"]?["reason"]?.stringValue == "not today")

        let parts = Dictionary(
            uniqueKeysWithValues: header.split(separator: ",").map { part in
                let pair = part.split(separator: "=", maxSplits: 1)
                return (String(pair[0]), String(pair.count > 1 ? pair[1] : ""))
            })
        let timestamp = try #require(parts["t"])
        let expected = try await PythonOracle.run(
            """
            import hashlib, hmac, json, sys
            given = json.load(sys.stdin)
            message = (given["t"] + ".").encode() + bytes.fromhex(given["body"])
            print(json.dumps(hmac.new(given["secret"].encode(), message, hashlib.sha256).hexdigest()))
            """,
            input: .object(
                JSONObject([
                    "t": .string(timestamp), "body": .string(Hex.encode(body, prefix: false)),
                    "secret": .string("whsec-approvals-test-3f9"),
                ])))
        #expect(parts["v1"] == expected.stringValue)
        #expect(abs((Int64(timestamp) ?? 0) - Int64(Date().timeIntervalSince1970)) < 600)
        await receiver.stop()
    }
}
