import EthereumPrimitives
import Foundation
import SignerKit
import SoftwareSigner
import Synchronization
import Testing
import WalletConnectPay
import WalletConnectPayTesting

/// A key that counts its signatures (the proof that nothing was signed).
final class CountingKey: PrehashSigner {
    let key: SoftwareKeySigner
    private let count = Mutex(0)
    init(_ key: SoftwareKeySigner) { self.key = key }
    var address: Address { key.address }
    var signatures: Int { count.withLock { $0 } }
    func sign(prehash: Digest32) async throws(SignerError) -> RecoverableSignature {
        count.withLock { $0 += 1 }
        return try await key.sign(prehash: prehash)
    }
}

/// "Pay signs only what it shows": the local Pay service's hostile options (each shows the payment's
/// amount, its action asks for more) are refused before anything is signed or confirmed.
@Suite("Pay refuses hostile options")
struct PayHostileOptionTests {
    func wallet() throws -> (CountingKey, RpcDispatcher) {
        let key = CountingKey(SoftwareKeySigner.generate())
        let dispatcher = RpcDispatcher()
        try dispatcher.register(key)
        return (key, dispatcher)
    }

    static let expectations: [(LocalPayService.OptionKind, String)] = [
        (.hostileUnlimitedPermit, "(permit): allows spender 0x000000000000000000000000000000000"),
        (
            .hostilePermit2Overspend,
            "(permit2-transfer): 2.000000 USDC exceeds the option's amount of 1000000 base units"
        ),
        (
            .hostileOtherToken,
            "(permit2-transfer): moves token 0x1111111111111111111111111111111111111111, not the option's asset"
        ),
        (.hostileOtherPayer, "(erc3009-receive): pays from 0x000000000000000000000000000000000"),
        (.hostilePersonalSign, "(message): not an action a payment needs"),
    ]

    @Test(
        "each hostile option alone: no option can be completed; nothing signed, fetched or confirmed",
        arguments: expectations)
    func alone(kind: LocalPayService.OptionKind, reason: String) async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment(.init(optionKinds: [kind]))
        let (key, dispatcher) = try wallet()
        let log = StepLog()
        let flow = PayFlow(client: makeClient(service), dispatcher: dispatcher) { log.append($0) }
        let error = await payError { () async throws(PayError) in
            try await flow.pay(link: id, accounts: [baseAccount(key)])
        }
        guard case .noCompletableOption(let reasons)? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(reasons.count == 1)
        #expect(reasons.first?.contains("action[0] " + reason) == true, "\(reasons)")
        let skipped = log.all.compactMap { step -> String? in
            if case .optionSkipped(_, let reason) = step { return reason }
            return nil
        }
        #expect(skipped.count == 1 && skipped[0].contains(reason))
        #expect(key.signatures == 0)
        #expect(service.requests(to: .fetch).isEmpty)
        #expect(service.requests(to: .confirm).isEmpty)
    }

    @Test("chosen explicitly, a hostile option is refused naming the reason; nothing signed or confirmed")
    func explicit() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment(.init(optionKinds: [.hostileUnlimitedPermit, .erc3009]))
        let (key, dispatcher) = try wallet()
        let flow = PayFlow(client: makeClient(service), dispatcher: dispatcher)
        let option = "opt_hostileUnlimitedPermit_8453_0"
        let error = await payError { () async throws(PayError) in
            try await flow.pay(link: id, accounts: [baseAccount(key)], optionId: option)
        }
        guard case .optionNotCompletable(let refused, let reason)? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(refused == option)
        #expect(reason.contains("not the Permit2 contract"))
        #expect(key.signatures == 0)
        #expect(service.requests(to: .confirm).isEmpty)
    }

    @Test("auto-selection skips every hostile option with its reason and pays with the honest one, previews first")
    func skipsToHonest() async throws {
        let service = try startService()
        defer { service.stop() }
        let id = service.createPayment(.init(optionKinds: LocalPayService.OptionKind.hostile + [.erc3009]))
        let (key, dispatcher) = try wallet()
        let log = StepLog()
        let flow = PayFlow(client: makeClient(service), dispatcher: dispatcher) { log.append($0) }
        let final = try await flow.pay(link: id, accounts: [baseAccount(key)])
        #expect(final.status == .succeeded)
        var skipped: [String] = []
        var order: [String] = []
        for step in log.all {
            switch step {
            case .optionSkipped(let option, _): skipped.append(option.id)
            case .optionSelected(let option): order.append("selected \(option.id)")
            case .preview(_, let previews):
                #expect(previews.map(\.kind) == [.erc3009Receive])
                #expect(previews.first?.tokens.first?.formatted == "1.000000 USDC")
                order.append("preview")
            case .signed: order.append("signed")
            default: break
            }
        }
        #expect(skipped.count == LocalPayService.OptionKind.hostile.count)
        #expect(order == ["selected opt_erc3009_8453_0", "preview", "signed"])
        #expect(key.signatures == 1)
        #expect(service.requests(to: .confirm).count == 1)
    }

    @Test("the two-step Permit2 option passes the check (approve to Permit2, permit within amount and expiry)")
    func honestTwoStep() throws {
        let key = SoftwareKeySigner.generate()
        let token = try #require(LocalPayCatalog.token(on: base))
        let approve = WalletRpcAction(
            chainId: base, method: "eth_sendTransaction",
            params: .array([
                .object(
                    JSONObject([
                        "from": .string(key.address.checksummed), "to": .string(token.contract.checksummed),
                        "data": .string(
                            Hex.encode(LocalPayCatalog.approveCalldata(spender: LocalPayCatalog.permit2, amount: .max))),
                    ]))
            ]))
        let now = Date()
        let expires = Int64(now.timeIntervalSince1970) + 300
        let permit = WalletRpcAction(
            chainId: base, method: "eth_signTypedData_v4",
            params: .array([
                .string(key.address.checksummed),
                .string(
                    LocalPayCatalog.permitTransferFrom(
                        token: token, amount: UInt256(1_000_000), spender: LocalPayCatalog.settlementContract,
                        nonce: UInt256(1), deadline: UInt64(expires + 600)
                    ).serialized),
            ]))
        let option = PaymentOption(
            id: "opt", account: "eip155:8453:\(key.address.checksummed)",
            amount: PayAmount(unit: token.unit, value: "1000000", display: nil), etaS: 1, expiresAt: expires,
            actions: [.walletRpc(approve), .walletRpc(permit)], collectData: nil)
        let previews = try RpcDispatcher().preview(actions: [approve, permit])
        let check = PayOptionCheck(now: { now })
        #expect(check.problem(option: option, previews: previews) == nil)
        // A permit valid for a day is refused; the unrecognised-action switch does not relax the recognised rules.
        let late = try RpcDispatcher().preview(actions: [
            WalletRpcAction(
                chainId: base, method: "eth_signTypedData_v4",
                params: .array([
                    .string(key.address.checksummed),
                    .string(
                        LocalPayCatalog.permitTransferFrom(
                            token: token, amount: UInt256(1), spender: LocalPayCatalog.settlementContract,
                            nonce: UInt256(1), deadline: UInt64(expires + 86400)
                        ).serialized),
                ]))
        ])
        let lenient = PayOptionCheck(allowsUnrecognizedActions: true, now: { now })
        #expect(
            lenient.problem(option: option, previews: late)?.contains("after the option's expiry plus 3600 s") == true)
        // With the switch on, a message passes the check (its routing checks still apply).
        let message = try RpcDispatcher().preview(actions: [
            WalletRpcAction(
                chainId: base, method: "personal_sign",
                params: .array([.string("hi"), .string(key.address.checksummed)]))
        ])
        #expect(lenient.problem(option: option, previews: message) == nil)
        #expect(check.problem(option: option, previews: message)?.contains("not an action a payment needs") == true)
    }
}
