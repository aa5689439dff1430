import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SoftwareSigner
import Synchronization
import Testing

/// Limits over time on what an account moves (`SpendLimit`): native value and ERC-20 amounts summed per
/// account, chain, asset and window, a batch's calls counted, a refusal or a failed action not counted, the
/// next window fresh; the policy file's `spendLimits`.
@Suite("Spend limits over time")
struct SpendLimitTests {
    let base = ChainID(eip155: 8453)
    let token: Address
    let shop: Address

    init() throws {
        token = try Address("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")
        shop = try Address("0x00000000000000000000000000000000000005a0")
    }

    /// A wall clock a test moves.
    final class Clock: Sendable {
        private let time = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { time.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
    }

    /// `eth_signTransaction` of a complete transaction from `key` to `to` with `value` and `data`.
    func transaction(_ key: SoftwareKeySigner, to: Address, value: UInt256 = .zero, data: [UInt8] = [])
        -> WalletRpcAction
    {
        transaction(from: key.address, to: to, value: value, data: data)
    }

    /// `eth_signTransaction` of a complete transaction from `sender` to `to` with `value` and `data`.
    func transaction(from sender: Address, to: Address, value: UInt256 = .zero, data: [UInt8] = [])
        -> WalletRpcAction
    {
        let tx = """
            {"from":"\(sender.lowercased)","to":"\(to.lowercased)","value":"\(value.hexQuantity)",
             "data":"\(Hex.encode(data))","nonce":"0x0","gas":"0x30d40","maxFeePerGas":"0x77359400",
             "maxPriorityFeePerGas":"0x3b9aca00"}
            """
        return WalletRpcAction(chainId: base, method: .signTransaction, params: "[\(tx)]")
    }

    func transfer(_ amount: UInt64) -> [UInt8] {
        ERC20Calldata.transferSelector + shop.word.bytes + UInt256(amount).word.bytes
    }

    func refusal(_ error: DispatchError) -> String? {
        guard case .policyViolation(let policy, let reason) = error.kind, policy == "SpendLimit" else { return nil }
        return reason
    }

    @Test("native value per day: inclusive limit, refusals and failures not counted, the next day fresh")
    func nativePerDay() async throws {
        let clock = Clock()
        let ether = UInt256(1_000_000_000_000_000_000)
        let policy = SpendLimit(
            [.init(chain: base, asset: .native, maximum: ether)], store: MemoryUsageCounterStore(),
            now: { clock.now })
        let dispatcher = RpcDispatcher { policy }
        let key = SoftwareKeySigner.generate()
        try dispatcher.register(key)
        let tenth = UInt256(100_000_000_000_000_000)
        _ = try await dispatcher.sign(actions: [transaction(key, to: shop, value: tenth.multiplied(by: 6)!)])
        do {
            _ = try await dispatcher.sign(actions: [transaction(key, to: shop, value: tenth.multiplied(by: 5)!)])
            Issue.record("signed beyond the limit")
        } catch {
            let reason = try #require(refusal(error))
            #expect(reason.contains("has moved or allowed 600000000000000000 of 1000000000000000000 (native)"))
        }
        // The refused action was not counted: 0.4 more reaches the limit exactly.
        _ = try await dispatcher.sign(actions: [transaction(key, to: shop, value: tenth.multiplied(by: 4)!)])
        await #expect(throws: DispatchError.self) {
            _ = try await dispatcher.sign(actions: [self.transaction(key, to: self.shop, value: 1)])
        }
        // Another account has its own row; the next UTC day starts at zero.
        let other = SoftwareKeySigner.generate()
        try dispatcher.register(other)
        _ = try await dispatcher.sign(actions: [transaction(other, to: shop, value: ether)])
        clock.advance(86_400)
        _ = try await dispatcher.sign(actions: [transaction(key, to: shop, value: ether)])
        // One action above the limit by itself is refused before anything is counted.
        await #expect {
            _ = try await dispatcher.sign(actions: [self.transaction(key, to: self.shop, value: ether.adding(1)!)])
        } throws: { error in
            (error as? DispatchError).flatMap(self.refusal)?.contains("is more than the limit") == true
        }
    }

    @Test("an ERC-20 limit counts every call of a batch; a failed action's charge is taken back")
    func tokenAcrossBatchCalls() async throws {
        let store = MemoryUsageCounterStore()
        let policy = SpendLimit([.init(chain: base, asset: .token(token), maximum: 300)], store: store)
        let dispatcher = RpcDispatcher { policy }
        let key = SoftwareKeySigner.generate()
        try dispatcher.register(key)
        // A transaction to itself running two calls: 200 transferred and 100 approved count 300.
        let approve = ERC20Calldata.approveSelector + shop.word.bytes + UInt256(100).word.bytes
        let batch = ERC7821Batch(calls: [
            ERC7821Batch.Call(to: token, data: transfer(200)), ERC7821Batch.Call(to: token, data: approve),
        ])
        _ = try await dispatcher.sign(actions: [transaction(key, to: key.address, data: batch.calldata)])
        await #expect(throws: DispatchError.self) {
            _ = try await dispatcher.sign(actions: [self.transaction(key, to: self.token, data: self.transfer(1))])
        }
        // A backend that fails: its charge is refunded, so the account's full limit is there afterwards.
        let hosted = PrivateKey.generate().address
        let calls = CallCounter()
        try dispatcher.register(RejectingBackend(account: hosted, counter: calls))
        let hostedAction = transaction(from: hosted, to: token, data: transfer(300))
        await #expect(throws: DispatchError.self) { _ = try await dispatcher.sign(actions: [hostedAction]) }
        #expect(calls.calls == 1)
        let window = UsageWindow.start(of: Date().timeIntervalSince1970, seconds: 86_400)
        let counter = "spend-limit:calendar:86400:account:\(base):\(token.lowercased)"
        let totals = try await store.totals(counter: counter, subject: hosted.lowercased, windowStart: window)
        #expect(totals == .zero, "the failed action's charge was taken back")
        let charged = try await store.totals(counter: counter, subject: key.address.lowercased, windowStart: window)
        #expect(charged == UsageTotals(count: 1, amount: 300), "the row this test reads is the one charged")
    }

    @Test("the policy file's spendLimits")
    func policyFile() throws {
        let policies = try PolicyFile.policies(
            jsonText: #"""
                {"spendLimits": {"windowSeconds": 3600, "limits": [
                  {"chainId": "eip155:8453", "token": "native", "maximum": "1000000000000000000"},
                  {"chainId": "eip155:8453", "token": "\#(token.checksummed)", "maximum": "5000000000"}]}}
                """#)
        let limit = try #require(policies.first as? SpendLimit)
        #expect(limit.windowSeconds == 3600)
        #expect(
            limit.limits == [
                .init(chain: base, asset: .native, maximum: 1_000_000_000_000_000_000),
                .init(chain: base, asset: .token(token), maximum: 5_000_000_000),
            ])
        for (text, names) in [
            (#"{"spendLimits": {"limits": []}}"#, "spendLimits.limits"),
            (#"{"spendLimits": {"limits": [{"chainId": "eip155:1", "token": "0x12", "maximum": "1"}]}}"#, "token"),
            (#"{"spendLimits": {"limits": [{"chainId": "eip155:1", "token": "native"}]}}"#, "maximum"),
        ] {
            #expect { _ = try PolicyFile.policies(jsonText: text) } throws: { "\($0)".contains(names) }
        }
    }
}

/// Limits per client over a rolling window, and a limit that holds for approvals instead of refusing.
@Suite("Spend limits per client, rolling, holding")
struct SpendLimitScopeTests {
    let base = ChainID(eip155: 8453)
    let shop: Address
    let ether = UInt256(1_000_000_000_000_000_000)

    init() throws { shop = try Address("0x00000000000000000000000000000000000005a0") }

    func payment(_ key: SoftwareKeySigner, tenths: UInt64, nonce: Int = 0) -> WalletRpcAction {
        let value = UInt256(100_000_000_000_000_000).multiplied(by: UInt256(tenths)) ?? .zero
        let tx = """
            {"from":"\(key.address.lowercased)","to":"\(shop.lowercased)","value":"\(value.hexQuantity)",
             "nonce":"\(UInt256(UInt64(nonce)).hexQuantity)","gas":"0x5208","maxFeePerGas":"0x77359400",
             "maxPriorityFeePerGas":"0x3b9aca00"}
            """
        return WalletRpcAction(chainId: base, method: .signTransaction, params: "[\(tx)]")
    }

    func sign(_ dispatcher: RpcDispatcher, _ action: WalletRpcAction, as caller: String?) async throws(DispatchError) {
        _ = try await dispatcher.sign(dispatcher.prepare(actions: [action], caller: caller))
    }

    @Test("per client over a rolling hour: every account of the client counts, a spend ages out after the hour")
    func rollingPerClient() async throws {
        let clock = SpendLimitTests.Clock()
        let policy = SpendLimit(
            [.init(chain: base, asset: .native, maximum: ether)], windowSeconds: 3600, rolling: true, per: .client,
            store: MemoryUsageCounterStore(), now: { clock.now })
        let dispatcher = RpcDispatcher { policy }
        let (one, two) = (SoftwareKeySigner.generate(), SoftwareKeySigner.generate())
        try dispatcher.register(one)
        try dispatcher.register(two)
        try await sign(dispatcher, payment(one, tenths: 6), as: "payouts")
        clock.advance(1800)
        // Another account of the same client counts in the same row; another client has its own.
        try await sign(dispatcher, payment(two, tenths: 4), as: "payouts")
        try await sign(dispatcher, payment(one, tenths: 10), as: "refunds")
        clock.advance(1700)
        do {
            try await sign(dispatcher, payment(one, tenths: 1), as: "payouts")
            Issue.record("a rolling window forgot a spend within the hour")
        } catch {
            guard case .policyViolation(_, let reason) = error.kind else { throw error }
            #expect(reason.contains("client payouts has moved or allowed 1000000000000000000"), "\(reason)")
            #expect(reason.contains("in the last 3600 s"))
        }
        // An hour and a bucket (150 s) after the first spend, its 0.6 no longer counts; the 0.4 still does.
        clock.advance(250)
        try await sign(dispatcher, payment(one, tenths: 6), as: "payouts")
        await #expect(throws: DispatchError.self) {
            try await self.sign(dispatcher, self.payment(one, tenths: 1), as: "payouts")
        }
        // Without a caller, a limit per client cannot count: refused.
        await #expect(throws: DispatchError.self) {
            try await self.sign(dispatcher, self.payment(two, tenths: 1), as: nil)
        }
    }

    @Test("above the limit, held for approvals instead of refused; once approved, signed and counted")
    func holdWhenExceeded() async throws {
        let hold = ApprovalRequirement(rule: "over-limit", group: "treasury", required: 1, lifetimeSeconds: 600)
        let policy = SpendLimit(
            [.init(chain: base, asset: .native, maximum: ether)], per: .client, holdWhenExceeded: hold,
            store: MemoryUsageCounterStore())
        let dispatcher = RpcDispatcher { policy }
        let key = SoftwareKeySigner.generate()
        try dispatcher.register(key)
        let held = HeldRequests(store: MemoryHeldRequestStore())
        try await sign(dispatcher, payment(key, tenths: 7), as: "payouts")
        // What is left of the window is exceeded as the action is charged: the error names the approvals.
        let over = try await dispatcher.prepare(actions: [payment(key, tenths: 5, nonce: 1)], caller: "payouts")
        #expect(over.approvalRequirements.isEmpty)
        do {
            _ = try await dispatcher.sign(over)
            Issue.record("signed beyond the limit")
        } catch {
            guard case .approvalRequired(let requirements) = error.kind else { throw error }
            #expect(requirements == [hold] && error.broadcast.isEmpty)
            let request = try await held.hold(
                over.requiring(requirements), initiator: "payouts", method: "eth_signTransaction")
            _ = try await held.decide(
                .approve(digest: nil), on: request.id, by: Approver(name: "alice", groups: ["treasury"]))
            #expect(try await held.sign(request.id, with: dispatcher).status == .signed)
        }
        // An action above the limit by itself is held at once (not refused).
        let big = try await dispatcher.prepare(actions: [payment(key, tenths: 20, nonce: 2)], caller: "payouts")
        #expect(big.approvalRequirements == [hold])
        // The approved 0.5 was counted: 1.2 of 1.0 used, so even 0.1 is held now.
        await #expect(throws: DispatchError.self) {
            try await self.sign(dispatcher, self.payment(key, tenths: 1, nonce: 3), as: "payouts")
        }
    }
}
