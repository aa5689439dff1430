import EthereumPrimitives
import EthereumTransactions
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Synchronization
import Testing

/// `ronin_sponsorTransaction`: a registered payer adds its signature to a sender's type 0x64 request, under
/// sponsor policies and per-sender quotas.
@Suite("Ronin sponsorship through the dispatcher (ronin_sponsorTransaction)")
struct RoninSponsorshipTests {
    /// A vector row: the sender's request (no payer signature), the payer's and sender's keys, the row.
    struct Row {
        let request: TransactionRequest
        let payer: SoftwareKeySigner
        let sender: SoftwareKeySigner
        let json: JSONValue

        init(_ index: Int) throws {
            json = try Vectors.rows("ronin_sponsored.jsonl")[index]
            request = try TransactionRequest(json: json["tx"] ?? .null)
            payer = try SoftwareKeySigner(hex: json["payerPrivateKey"]?.stringValue ?? "")
            sender = try SoftwareKeySigner(hex: json["senderPrivateKey"]?.stringValue ?? "")
        }

        /// The row's `expiredTime` as a date, moved by `offset` seconds: a clock for the policies.
        func clock(_ offset: TimeInterval) -> @Sendable () -> Date {
            let expiry = TimeInterval(request.expiredTime ?? 0)
            return { Date(timeIntervalSince1970: expiry + offset) }
        }

        var chain: ChainID { ChainID(eip155: request.chainId?.uint64 ?? 0) }

        func action(_ request: TransactionRequest? = nil, method: RpcMethod = .sponsorTransaction) -> WalletRpcAction {
            WalletRpcAction(chainId: chain, method: method, params: .array([(request ?? self.request).json]))
        }
    }

    static func dispatcher(
        payer: any PrehashSigner, @PolicyBuilder policies: () -> [any ActionPolicy] = { [] }
    ) throws -> RpcDispatcher {
        let dispatcher = RpcDispatcher(policies: policies)
        try dispatcher.register(payer, methods: [.sponsorTransaction])
        return dispatcher
    }

    @Test("the payer's signature is the vector's, and the sender's key then signs the vector's raw transaction")
    func sponsorsThenSenderSigns() async throws {
        for index in [0, 3, 11, 19] {
            let row = try Row(index)
            let signed = try await Self.dispatcher(payer: row.payer).sign(actions: [row.action()])
            let expected = try #require(row.json["payerSignature"])
            let r = try #require(expected["r"]?.stringValue), s = try #require(expected["s"]?.stringValue)
            let v = try #require(expected["yParity"]?.stringValue)
            let result = try #require(signed.results.first)
            #expect(
                try Hex.decode(result)
                    == (try Bytes32(hex: r)).bytes + (try Bytes32(hex: s)).bytes + [
                        UInt8(try UInt256(text: v).uint64 ?? 9)
                    ])

            // The service's answer: the request with payer, payerV, payerR, payerS, signed by the sender as is.
            var sponsored = row.request
            sponsored.payerSignature = try RecoverableSignature(
                r: try Bytes32(hex: r), s: try Bytes32(hex: s), recoveryId: UInt8(try UInt256(text: v).uint64 ?? 9))
            let senderSide = RpcDispatcher()
            try senderSide.register(row.sender)
            let raw = try await senderSide.sign(actions: [row.action(sponsored, method: .signTransaction)])
            #expect(raw.results == [row.json["rawTransaction"]?.stringValue ?? ""])
        }
    }

    @Test("a payer key signs sponsorships alone: mixing methods, or a second registration of the account, is refused")
    func payerKeyIsExclusive() throws {
        let row = try Row(0)
        let mixed = RpcDispatcher()
        #expect(
            throws: RegistrationError.sponsorKeyNotExclusive(
                row.payer.address, backend: "PrehashBackend(SoftwareKeySigner)")
        ) {
            try mixed.register(row.payer, methods: [.sponsorTransaction, .personalSign])
        }
        let payerFirst = try Self.dispatcher(payer: row.payer)
        #expect(throws: RegistrationError.self) { try payerFirst.register(row.payer, chains: [row.chain]) }
        let accountFirst = RpcDispatcher()
        try accountFirst.register(row.payer, chains: [row.chain])
        #expect(throws: RegistrationError.self) { try accountFirst.register(row.payer, methods: [.sponsorTransaction]) }
        // By default a key gets its own account's methods, never sponsorship.
        #expect(accountFirst.backend(for: row.payer.address, chain: row.chain, method: .sponsorTransaction) == nil)
    }

    @Test(
        "refused requests name the field: no payer, payer is the sender, already sponsored, unfilled, not 0x64",
        arguments: [
            ("payer", "payer: missing"), ("sender", "is also the sender"), ("signed", "already sponsored"),
            ("nonce", "nonce: missing"), ("type", "is not a sponsored transaction"), ("expiry", "expiredTime: missing"),
        ])
    func refusals(change: String, expected: String) async throws {
        let row = try Row(1)
        var request = row.request
        switch change {
        case "payer": request.payer = nil
        case "sender": request.payer = request.from
        case "signed": request.payerSignature = try RecoverableSignature(r: Bytes32(), s: Bytes32(), recoveryId: 0)
        case "nonce": request.nonce = nil
        case "expiry": request.expiredTime = nil
        default: break
        }
        let recorder = RecordingSigner(row.payer)
        let dispatcher = try Self.dispatcher(payer: recorder)
        var action = row.action(request)
        if change == "type" {
            var object = try #require(request.json.objectValue)
            object["type"] = .string("0x2")
            object["expiredTime"] = nil
            object["payer"] = nil
            action = WalletRpcAction(
                chainId: row.chain, method: .sponsorTransaction, params: .array([.object(object)]))
        }
        do {
            _ = try await dispatcher.sign(actions: [action])
            Issue.record("\(change): signed")
        } catch {
            #expect("\(error)".contains(expected), "\(error)")
        }
        #expect(recorder.signed.isEmpty)
    }

    @Test(
        "sponsor policy: contracts, selectors, creation, gas, fee cap and the expiry window, judged before the payer signs"
    )
    func policy() async throws {
        let row = try Row(0)  // a transfer of value to 0x56b2…, 21000 gas at 20 gwei, expiring at expiredTime
        let to = try #require(row.request.to)
        let gas = try #require(row.request.gasLimit), fee = try #require(row.request.maxFeePerGas)
        func outcome(_ policy: RoninSponsorPolicy, _ request: TransactionRequest? = nil) async throws -> String {
            let recorder = RecordingSigner(row.payer)
            let dispatcher = try Self.dispatcher(payer: recorder) { policy }
            do {
                _ = try await dispatcher.sign(actions: [row.action(request)])
                #expect(recorder.signed.count == 1)
                return "signed"
            } catch {
                #expect(recorder.signed.isEmpty)
                return "\(error)"
            }
        }
        let tenMinutesBefore = row.clock(-600)
        #expect(try await outcome(RoninSponsorPolicy(now: tenMinutesBefore)) == "signed")
        #expect(
            try await outcome(RoninSponsorPolicy(allowedCalls: [.init(contract: to)], now: tenMinutesBefore))
                == "signed")
        let other = try Address("0x000000000000000000000000000000000000bEEF")
        #expect(
            try await outcome(RoninSponsorPolicy(allowedCalls: [.init(contract: other)], now: tenMinutesBefore))
                .contains("to: \(to.checksummed) is not a sponsored contract"))
        #expect(
            try await outcome(
                RoninSponsorPolicy(
                    allowedCalls: [.init(contract: to, selectors: [[0xa9, 0x05, 0x9c, 0xbb]])], now: tenMinutesBefore)
            ).contains("without a function selector"))
        var transfer = row.request
        transfer.data = [0x09, 0x5e, 0xa7, 0xb3] + [UInt8](repeating: 0, count: 64)
        #expect(
            try await outcome(
                RoninSponsorPolicy(
                    allowedCalls: [.init(contract: to, selectors: [[0xa9, 0x05, 0x9c, 0xbb]])], now: tenMinutesBefore),
                transfer
            ).contains("function 0x095ea7b3"))
        var creation = row.request
        creation.to = nil
        creation.data = [0x60, 0x00, 0x60, 0x00, 0xf3]
        #expect(try await outcome(RoninSponsorPolicy(now: tenMinutesBefore), creation).contains("contract creation"))
        let allowed = try await outcome(
            RoninSponsorPolicy(allowsContractCreation: true, now: tenMinutesBefore), creation)
        #expect(allowed == "signed", "\(allowed)")
        #expect(
            try await outcome(RoninSponsorPolicy(maximumGas: gas.subtractingSmall(1), now: tenMinutesBefore))
                .contains("gas 21000 is above"))
        #expect(
            try await outcome(RoninSponsorPolicy(maximumFeePerGas: fee.subtractingSmall(1), now: tenMinutesBefore))
                .contains("maxFeePerGas"))
        #expect(
            try await outcome(RoninSponsorPolicy(maximumExpirySeconds: 599, now: tenMinutesBefore)).contains("ahead"))
        #expect(try await outcome(RoninSponsorPolicy(now: row.clock(0))).contains("has already passed"))
        var open = row.request
        open.expiredTime = 0
        #expect(
            try await outcome(RoninSponsorPolicy(now: tenMinutesBefore), open).contains("expiredTime 0 never expires"))
        #expect(try await outcome(RoninSponsorPolicy(allowsNoExpiry: true, now: tenMinutesBefore), open) == "signed")
    }

    @Test("per-sender quota: counted per window, refused at the limit, counted again in the next window")
    func quota() async throws {
        let row = try Row(0)
        let store = MemoryUsageCounterStore()
        let clock = MovableDate(row.clock(-600)())
        let quota = RoninSponsorQuota(
            windowSeconds: 86_400, maximumTransactions: 2, maximumGasCost: nil, store: store, now: { clock.date })
        let dispatcher = try Self.dispatcher(payer: row.payer) { quota }
        for _ in 0..<2 { _ = try await dispatcher.sign(actions: [row.action()]) }
        await #expect(throws: DispatchError.self) { _ = try await dispatcher.sign(actions: [row.action()]) }
        do {
            _ = try await dispatcher.sign(actions: [row.action()])
        } catch {
            #expect("\(error)".contains("has used 2 of 2 sponsored transactions"), "\(error)")
        }
        // Another sender of the same payer has its own count.
        var otherSender = row.request
        otherSender.from = try Address("0x000000000000000000000000000000000000bEEF")
        _ = try await dispatcher.sign(actions: [row.action(otherSender)])
        // The next window.
        clock.date += 86_400
        _ = try await dispatcher.sign(actions: [row.action()])

        // The gas-cost limit: 21000 gas × fee per transaction, two fit, the third does not.
        let cost = try #require(row.request.gasLimit?.multiplied(by: row.request.maxFeePerGas ?? .zero))
        let costQuota = RoninSponsorQuota(
            maximumTransactions: nil, maximumGasCost: cost.adding(cost),
            store: MemoryUsageCounterStore(), now: { clock.date })
        let byCost = try Self.dispatcher(payer: row.payer) { costQuota }
        for _ in 0..<2 { _ = try await byCost.sign(actions: [row.action()]) }
        do {
            _ = try await byCost.sign(actions: [row.action()])
            Issue.record("a third sponsorship beyond the gas-cost quota was signed")
        } catch {
            #expect("\(error)".contains("wei of gas × fee cap"), "\(error)")
        }
    }

    @Test("a sponsorship whose signature fails verification is not counted: the charge is taken back")
    func refundOnFailure() async throws {
        let row = try Row(0)
        let store = MemoryUsageCounterStore()
        let quota = RoninSponsorQuota(maximumTransactions: 1, maximumGasCost: nil, store: store, now: row.clock(-600))
        let liar = RpcDispatcher { quota }
        try liar.register(LyingPayer(claimed: row.payer.address, key: row.sender))
        await #expect(throws: DispatchError.self) { _ = try await liar.sign(actions: [row.action()]) }
        let usage = try #require(quota.usages(of: try await liar.prepare(actions: [row.action()]).requests[0]).first)
        #expect(
            try await store.totals(
                counter: usage.charge.counter, subject: usage.charge.subject, windowStart: usage.charge.windowStart)
                == .zero)
    }

    @Test("the preview shows the sponsorship: payer, sender, the call, the most it can cost, the expiry")
    func preview() throws {
        let row = try Row(0)
        let dispatcher = try Self.dispatcher(payer: row.payer)
        let preview = try #require(try dispatcher.preview(actions: [row.action()]).first)
        #expect(preview.account == row.payer.address)
        #expect(preview.kind == .nativeTransfer)
        let sponsorship = try #require(preview.sponsorship)
        #expect(sponsorship.sender == row.request.from)
        #expect(sponsorship.maximumCost == row.request.gasLimit?.multiplied(by: row.request.maxFeePerGas ?? .zero))
        #expect(preview.json["sponsorship"]?["expires"]?.stringValue == "2025-01-01T00:10:00Z")
        #expect(preview.line.contains("sponsors \(row.request.from?.checksummed ?? "")"))
        var open = row.request
        open.expiredTime = 0
        let openPreview = try #require(try dispatcher.preview(actions: [row.action(open)]).first)
        #expect(openPreview.warnings.contains(.noExpiry))
        #expect(openPreview.line.contains("never expires"))
    }
}

/// A wall-clock date a test moves.
final class MovableDate: Sendable {
    private let value: Mutex<Date>
    init(_ date: Date) { value = Mutex(date) }
    var date: Date {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

/// Claims the payer's account but signs with another key: verification must refuse its signature.
struct LyingPayer: WalletRpcSigner {
    let claimed: Address
    let key: SoftwareKeySigner
    var accounts: [Address] { [claimed] }
    var methods: Set<RpcMethod> { [.sponsorTransaction] }

    func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        guard case .sponsorship(_, let hash) = request.payload else {
            throw .unsupportedMethod(request.method.rawValue)
        }
        return .payerSignature(try await key.sign(prehash: hash))
    }
}
