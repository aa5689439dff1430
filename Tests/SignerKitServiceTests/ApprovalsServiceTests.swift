import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitService
import SignerKitTestSupport
import Synchronization
import Testing

/// Calls held for approval through the service (JSON-RPC over its HTTP handler, SQLite stores, a local EVM):
/// `-32010` with its data, 2 of 3 approve and it is signed once and audited, the caller's long-poll returns the
/// result, a retry answers with it; rejection; expiry on a manual clock; an approval replayed onto another request
/// refused; the initiator's own approval not counted; a restart with requests held; the webhook's signature.
@Suite("Approvals through the service")
struct ApprovalsServiceTests {
    /// The request id of a `-32010` answer, after checking its data.
    func heldID(_ answer: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        #expect(answer.errorCode == -32010, "\(answer.serialized)", sourceLocation: sourceLocation)
        let data = try #require(answer["error"]?["data"], sourceLocation: sourceLocation)
        #expect(data["rule"]?.stringValue == "large-payout", sourceLocation: sourceLocation)
        let expiry = try #require(data["expiresAt"]?.stringValue, sourceLocation: sourceLocation)
        #expect(ISO8601DateFormatter().date(from: expiry) != nil, "\(expiry)", sourceLocation: sourceLocation)
        return try #require(data["requestId"]?.stringValue, sourceLocation: sourceLocation)
    }

    @Test("held, 2 of 3 approve, signed once and audited; the long-poll returns the hash; a retry answers with it")
    func twoOfThree() async throws {
        let service = try await ApprovalsService.start()
        let before = try await service.minedCount()
        // Below the threshold: signed at once.
        #expect(try await service.pay(ApprovalsService.ether)["result"]?.stringValue != nil)
        let held = try await service.pay(ApprovalsService.ether.multiplied(by: 2)!, key: "payout-17")
        let id = try heldID(held)
        #expect(try await service.minedCount() == before + 1)

        let poll = Task {
            try await service.call("payouts", "signerkit_requestStatus", #"["\#(id)", {"waitMs": 120000}]"#)
        }
        // What approvers see: the request with its preview and digest.
        let list = try await service.call("alice", "signerkit_heldRequests", "[]")
        let listed = try #require(list["result"]?.arrayValue?.first { $0["requestId"]?.stringValue == id })
        #expect(listed["initiator"]?.stringValue == "payouts")
        #expect(listed["previews"]?.arrayValue?.first?["kind"]?.stringValue == "native-transfer")
        let digest = try #require(listed["digest"]?.stringValue)
        #expect(try await service.call("dave", "signerkit_heldRequests", "[]")["result"]?.arrayValue?.isEmpty == true)

        let first = try await service.call("alice", "signerkit_approve", #"["\#(id)", {"digest": "\#(digest)"}]"#)
        #expect(first["result"]?["status"]?.stringValue == "held")
        #expect(first["result"]?["approvals"] == .array(["alice"]))
        // The initiator is not an approver; dave is in another group.
        #expect(try await service.call("payouts", "signerkit_approve", #"["\#(id)"]"#).errorCode == -32001)
        #expect(try await service.call("dave", "signerkit_approve", #"["\#(id)"]"#).errorCode == -32001)

        let second = try await service.call("bob", "signerkit_approve", #"["\#(id)", {"digest": "\#(digest)"}]"#)
        #expect(second["result"]?["status"]?.stringValue == "signed", "\(second.serialized)")
        #expect(second["result"]?["approvals"] == .array(["alice", "bob"]))
        let hash = try #require(second["result"]?["result"]?.stringValue)
        #expect(hash.count == 66)
        let polled = try await poll.value
        #expect(polled["result"]?["status"]?.stringValue == "signed")
        #expect(polled["result"]?["result"]?.stringValue == hash)
        #expect(try await service.minedCount() == before + 2)

        // Carol's late approval changes nothing; the retry with the same key answers with the same hash.
        #expect(try await service.call("carol", "signerkit_approve", #"["\#(id)"]"#).errorCode == -32011)
        let retry = try await service.pay(ApprovalsService.ether.multiplied(by: 2)!, key: "payout-17")
        #expect(retry["result"]?.stringValue == hash, "\(retry.serialized)")
        #expect(try await service.minedCount() == before + 2)

        // Audited: the held call, both approvals, the intent before the broadcast, the signing approval.
        let records = service.audit.records.filter { $0.heldRequest == id }
        #expect(records.map(\.method).contains("eth_sendTransaction"))
        #expect(records.first { $0.method == "eth_sendTransaction" }?.errorCode == -32010)
        #expect(records.filter { $0.intent }.count == 1)
        #expect(
            records.filter { $0.method == "signerkit_approve" && $0.errorCode == nil }.map(\.client) == [
                "alice", "bob",
            ])
        #expect(records.last { $0.client == "bob" }?.resultHash != nil)
    }

    @Test("a rejection ends it: the long-poll returns rejected, nothing is sent, later approvals are refused")
    func rejection() async throws {
        let service = try await ApprovalsService.start()
        let before = try await service.minedCount()
        let id = try heldID(try await service.pay(ApprovalsService.ether.multiplied(by: 3)!))
        let poll = Task {
            try await service.call("payouts", "signerkit_requestStatus", #"["\#(id)", {"waitMs": 120000}]"#)
        }
        _ = try await service.call("alice", "signerkit_approve", #"["\#(id)"]"#)
        let rejected = try await service.call("carol", "signerkit_reject", #"["\#(id)", "unknown payee"]"#)
        #expect(rejected["result"]?["status"]?.stringValue == "rejected")
        #expect(rejected["result"]?["rejection"]?["reason"]?.stringValue == "unknown payee")
        #expect(try await poll.value["result"]?["status"]?.stringValue == "rejected")
        #expect(try await service.call("bob", "signerkit_approve", #"["\#(id)"]"#).errorCode == -32011)
        #expect(try await service.minedCount() == before)
    }

    @Test("an approval bound to another request's digest is refused; the initiator's own approval does not count")
    func replayAndInitiator() async throws {
        let service = try await ApprovalsService.start()
        let one = try heldID(try await service.pay(ApprovalsService.ether.multiplied(by: 2)!))
        let other = try heldID(try await service.pay(ApprovalsService.ether.multiplied(by: 4)!))
        let list = try #require(try await service.call("bob", "signerkit_heldRequests", "[]")["result"]?.arrayValue)
        let digest = try #require(list.first { $0["requestId"]?.stringValue == one }?["digest"]?.stringValue)
        _ = try await service.call("bob", "signerkit_approve", #"["\#(one)", {"digest": "\#(digest)"}]"#)
        let replayed = try await service.call("bob", "signerkit_approve", #"["\#(other)", {"digest": "\#(digest)"}]"#)
        #expect(replayed.errorCode == -32602)
        #expect(replayed["error"]?["message"]?.stringValue?.contains("other actions or another preview") == true)

        // A request alice asked for herself (alice is also a treasury approver): her approval does not count.
        let own = try await service.call(
            "alice", "eth_sendTransaction",
            #"[{"from":"\#(TestKeys.alphaAddress)","to":"\#(InProcessService.payee)","value":"\#(ApprovalsService.ether.multiplied(by: 2)!.hexQuantity)"}]"#
        )
        let ownID = try heldID(own)
        let refused = try await service.call("alice", "signerkit_approve", #"["\#(ownID)"]"#)
        #expect(refused.errorCode == -32001)
        #expect(refused["error"]?["message"]?.stringValue?.contains("its own approval does not count") == true)
        let status = try await service.call("alice", "signerkit_requestStatus", #"["\#(ownID)"]"#)
        #expect(status["result"]?["approvals"] == .array([]))
        // Another client cannot even see it.
        #expect(try await service.call("payouts", "signerkit_requestStatus", #"["\#(ownID)"]"#).errorCode == -32602)
        // An id longer than any request id is refused without being echoed back whole.
        let long = String(repeating: "x", count: 5000)
        let refusedID = try await service.call("bob", "signerkit_approve", #"["\#(long)"]"#)
        #expect(refusedID.errorCode == -32602)
        #expect((refusedID["error"]?["message"]?.stringValue?.count ?? .max) < 200)
    }

    @Test("expiry on the injected clock: the long-poll returns expired at expiresAt, approvals after it are refused")
    func expiry() async throws {
        let clock = ManualClock()
        let origin = clock.now
        let now: @Sendable () -> Date = {
            let elapsed = (clock.now - origin).components
            return Date(timeIntervalSince1970: 1_900_000_000 + Double(elapsed.seconds))
        }
        let service = try await ApprovalsService.start(clock: clock, now: now)
        let answer = try await service.pay(ApprovalsService.ether.multiplied(by: 2)!)
        let id = try heldID(answer)
        #expect(answer["error"]?["data"]?["expiresAt"]?.stringValue == "2030-03-17T17:56:40Z")
        _ = try await service.call("alice", "signerkit_approve", #"["\#(id)"]"#)
        // The request's own time limit bounds a long-poll: 30 s by default; ask again until it expires.
        var status = "held"
        var polls = 0
        while status == "held", polls < 40 {
            let poll = Task {
                try await service.call("payouts", "signerkit_requestStatus", #"["\#(id)", {"waitMs": 20000}]"#)
            }
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .seconds(20))
            status = try #require(try await poll.value["result"]?["status"]?.stringValue)
            polls += 1
        }
        #expect(status == "expired" && polls == 30)
        #expect(try await service.call("bob", "signerkit_approve", #"["\#(id)"]"#).errorCode == -32011)
    }

    @Test("a client's daily limit holds what would exceed it for 2 of treasury; approved, it is sent and counted")
    func limitHolds() async throws {
        let limit = SpendLimit(
            [.init(chain: ApprovalsService.chain, asset: .native, maximum: ApprovalsService.ether.multiplied(by: 2)!)],
            per: .client,
            holdWhenExceeded: ApprovalRequirement(
                rule: "over-daily-limit", group: "treasury", required: 2, lifetimeSeconds: 600),
            store: MemoryUsageCounterStore())
        let service = try await ApprovalsService.start(policies: [limit])
        let before = try await service.minedCount()
        let half = UInt256(500_000_000_000_000_000)
        #expect(try await service.pay(ApprovalsService.ether.adding(half)!)["result"]?.stringValue != nil)
        let answer = try await service.pay(ApprovalsService.ether, key: "over-1")
        #expect(answer.errorCode == -32010)
        #expect(answer["error"]?["data"]?["rule"]?.stringValue == "over-daily-limit")
        let id = try #require(answer["error"]?["data"]?["requestId"]?.stringValue)
        #expect(try await service.minedCount() == before + 1)
        _ = try await service.call("alice", "signerkit_approve", #"["\#(id)"]"#)
        let signed = try await service.call("bob", "signerkit_approve", #"["\#(id)"]"#)
        #expect(signed["result"]?["status"]?.stringValue == "signed", "\(signed.serialized)")
        #expect(try await service.minedCount() == before + 2)
        // Counted: 2.5 of 2 used, so the next payment, however small, is held too.
        #expect(try await service.pay(UInt256(1))["error"]?["data"]?["rule"]?.stringValue == "over-daily-limit")
    }
}
