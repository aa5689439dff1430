import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Synchronization
import Testing

/// Calls held for approval in process (`ApprovalRule`, `HeldRequests` on a memory store): held, approved by
/// two of three, signed once; the initiator's approval not counted; an approval bound to another request's
/// digest refused; a rejection; an expiry on a manual clock; a long-poll woken by the approval that completes.
@Suite("Held requests")
struct HeldRequestsTests {
    let base = ChainID(eip155: 8453)
    let shop: Address
    let ether = UInt256(1_000_000_000_000_000_000)
    let alice = Approver(name: "alice", groups: ["treasury"])
    let bob = Approver(name: "bob", groups: ["treasury", "ops"])
    let carol = Approver(name: "carol", groups: ["treasury"])
    let outsider = Approver(name: "mallory", groups: ["marketing"])

    init() throws { shop = try Address("0x00000000000000000000000000000000000005a0") }

    /// A wall clock that moves with the manual clock, from a fixed start.
    static func wallClock(_ clock: ManualClock) -> @Sendable () -> Date {
        let origin = clock.now
        return {
            let elapsed = (clock.now - origin).components
            return Date(
                timeIntervalSince1970: 1_800_000_000 + Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
        }
    }

    /// A dispatcher holding payments above 1 ether for 2 of treasury, a key, and the held requests.
    func setUp(clock: ManualClock = ManualClock()) throws -> (RpcDispatcher, SoftwareKeySigner, HeldRequests) {
        let rule = ApprovalRule(
            "large-payment", above: [.init(chain: base, asset: .native, above: ether)], group: "treasury",
            required: 2, lifetimeSeconds: 600)
        let dispatcher = RpcDispatcher { rule }
        let key = SoftwareKeySigner.generate()
        try dispatcher.register(key)
        return (
            dispatcher, key,
            HeldRequests(store: MemoryHeldRequestStore(), clock: clock, now: Self.wallClock(clock))
        )
    }

    /// `eth_signTransaction` of a complete transaction paying `value` to the shop.
    func payment(_ key: SoftwareKeySigner, value: UInt256, nonce: Int = 0) -> WalletRpcAction {
        let tx = """
            {"from":"\(key.address.lowercased)","to":"\(shop.lowercased)","value":"\(value.hexQuantity)",
             "nonce":"\(UInt256(UInt64(nonce)).hexQuantity)","gas":"0x5208","maxFeePerGas":"0x77359400",
             "maxPriorityFeePerGas":"0x3b9aca00"}
            """
        return WalletRpcAction(chainId: base, method: .signTransaction, params: "[\(tx)]")
    }

    @Test("held above the threshold, 2 of 3 approve, signed once; below it signed at once")
    func twoOfThree() async throws {
        let (dispatcher, key, held) = try setUp()
        let small = try await dispatcher.sign(actions: [payment(key, value: ether)])
        #expect(small.results.count == 1)

        let prepared = try await dispatcher.prepare(actions: [payment(key, value: ether.multiplied(by: 5)!)])
        #expect(prepared.approvalRequirements.map(\.rule) == ["large-payment"])
        do {
            _ = try await dispatcher.sign(prepared)
            Issue.record("a held action was signed without approvals")
        } catch {
            guard case .approvalRequired(let requirements) = error.kind else { throw error }
            #expect(requirements.map(\.rule) == ["large-payment"] && error.index == 0)
        }
        let request = try await held.hold(prepared, initiator: "payouts", method: "eth_signTransaction")
        #expect(request.status == .held && request.expiresAt == request.createdAt + 600)
        await #expect(throws: ApprovalError.quorumNotMet(id: request.id)) {
            _ = try await held.sign(request.id, with: dispatcher)
        }
        let first = try await held.decide(.approve(digest: request.digest), on: request.id, by: alice)
        #expect(first.status == .held && first.approvers == ["alice"])
        // The same approver again changes nothing.
        #expect(try await held.decide(.approve(digest: nil), on: request.id, by: alice).approvers == ["alice"])
        let second = try await held.decide(.approve(digest: request.digest), on: request.id, by: bob)
        #expect(second.status == .approved && second.approvers == ["alice", "bob"])

        let signed = try await held.sign(request.id, with: dispatcher)
        #expect(signed.status == .signed)
        let raw = try #require(signed.result.flatMap { try? JSONValue(parsing: $0) }?.stringValue)
        #expect(raw.hasPrefix("0x02"))
        // Once signed, never again: the third approval and a second signing are refused.
        await #expect(throws: ApprovalError.notPending(id: request.id, status: .signed)) {
            _ = try await held.decide(.approve(digest: nil), on: request.id, by: carol)
        }
        await #expect(throws: ApprovalError.notPending(id: request.id, status: .signed)) {
            _ = try await held.sign(request.id, with: dispatcher)
        }
    }

    @Test("the initiator's approval does not count, an outsider's is refused, another request's digest is refused")
    func refusedApprovals() async throws {
        let (dispatcher, key, held) = try setUp()
        let one = try await held.hold(
            try await dispatcher.prepare(actions: [payment(key, value: ether.multiplied(by: 2)!)]),
            initiator: "alice", method: "eth_signTransaction")
        let other = try await held.hold(
            try await dispatcher.prepare(actions: [payment(key, value: ether.multiplied(by: 3)!)]),
            initiator: "payouts", method: "eth_signTransaction")
        #expect(one.digest != other.digest)
        await #expect(throws: ApprovalError.initiatorCannotApprove(client: "alice")) {
            _ = try await held.decide(.approve(digest: one.digest), on: one.id, by: alice)
        }
        await #expect(throws: ApprovalError.notInGroup(client: "mallory", groups: ["treasury"])) {
            _ = try await held.decide(.approve(digest: one.digest), on: one.id, by: outsider)
        }
        // Bob's approval of `one`, replayed onto `other`, is refused: it names what bob saw.
        _ = try await held.decide(.approve(digest: one.digest), on: one.id, by: bob)
        await #expect(throws: ApprovalError.digestMismatch(id: other.id)) {
            _ = try await held.decide(.approve(digest: one.digest), on: other.id, by: bob)
        }
        // Even with carol's approval the initiator's never made a quorum of `one`.
        let stillHeld = try await held.decide(.approve(digest: one.digest), on: one.id, by: carol)
        #expect(stillHeld.status == .approved && stillHeld.approvers == ["bob", "carol"])
        #expect(try await held.request(id: other.id)?.approvers == [])
    }

    @Test("a rejection ends it; nothing is signed")
    func rejection() async throws {
        let (dispatcher, key, held) = try setUp()
        let request = try await held.hold(
            try await dispatcher.prepare(actions: [payment(key, value: ether.multiplied(by: 2)!)]),
            initiator: "payouts", method: "eth_signTransaction")
        _ = try await held.decide(.approve(digest: nil), on: request.id, by: alice)
        let rejected = try await held.decide(.reject(reason: "unknown payee"), on: request.id, by: carol)
        #expect(rejected.status == .rejected && rejected.rejection?.reason == "unknown payee")
        await #expect(throws: ApprovalError.notPending(id: request.id, status: .rejected)) {
            _ = try await held.decide(.approve(digest: nil), on: request.id, by: bob)
        }
        await #expect(throws: ApprovalError.notPending(id: request.id, status: .rejected)) {
            _ = try await held.sign(request.id, with: dispatcher)
        }
    }

    @Test("an approval after the expiry is refused and the request expires; expireDue finds the others")
    func expiry() async throws {
        let clock = ManualClock()
        let (dispatcher, key, held) = try setUp(clock: clock)
        let late = try await held.hold(
            try await dispatcher.prepare(actions: [payment(key, value: ether.multiplied(by: 2)!)]),
            initiator: "payouts", method: "eth_signTransaction")
        let swept = try await held.hold(
            try await dispatcher.prepare(actions: [payment(key, value: ether.multiplied(by: 2)!, nonce: 1)]),
            initiator: "payouts", method: "eth_signTransaction")
        _ = try await held.decide(.approve(digest: nil), on: late.id, by: alice)
        clock.advance(by: .seconds(599))
        #expect(try await held.expireDue().isEmpty)
        clock.advance(by: .seconds(1))
        await #expect(throws: ApprovalError.expired(id: late.id)) {
            _ = try await held.decide(.approve(digest: nil), on: late.id, by: bob)
        }
        #expect(try await held.request(id: late.id)?.status == .expired)
        #expect(try await held.expireDue().map(\.id) == [swept.id])
    }

    @Test("a long-poll returns when the approval that completes the quorum is signed, and at its deadline")
    func longPoll() async throws {
        let clock = ManualClock()
        let (dispatcher, key, held) = try setUp(clock: clock)
        let request = try await held.hold(
            try await dispatcher.prepare(actions: [payment(key, value: ether.multiplied(by: 2)!)]),
            initiator: "payouts", method: "eth_signTransaction")
        // At its deadline, a poll returns the request still held.
        let poll = Task { try await held.wait(for: request.id, until: clock.now.advanced(by: .seconds(30))) }
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(30))
        #expect(try await poll.value.status == .held)

        let waiting = Task { try await held.wait(for: request.id, until: clock.now.advanced(by: .seconds(60))) }
        await clock.sleepers(atLeast: 1)
        _ = try await held.decide(.approve(digest: nil), on: request.id, by: alice)
        _ = try await held.decide(.approve(digest: nil), on: request.id, by: bob)
        _ = try await held.sign(request.id, with: dispatcher)
        let final = try await waiting.value
        #expect(final.status == .signed && final.result != nil)
    }
}
