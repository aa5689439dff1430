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
        let totals = try await store.totals(
            counter: "spend-limit:86400:\(base):\(token.lowercased)", subject: hosted.lowercased, windowStart: window)
        #expect(totals == .zero, "the failed action's charge was taken back")
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
