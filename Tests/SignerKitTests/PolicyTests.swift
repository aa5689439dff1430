import EthereumPrimitives
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// Policies composed with the result builder: evaluated on every action before anything is signed.
@Suite("Policies")
struct PolicyTests {
    let alpha: SoftwareKeySigner
    let gamma: PrivateKey

    init() throws {
        alpha = try TestKeys.signer(TestKeys.alphaHex)
        gamma = try TestKeys.key(TestKeys.gammaHex)
    }

    /// 0.01 ether.
    static let cap = UInt256(10_000_000_000_000_000)

    /// A dispatcher with the alpha key and a counting backend for gamma, under `policies`.
    func dispatcher(counter: CallCounter, @PolicyBuilder policies: () -> [any ActionPolicy]) throws -> RpcDispatcher {
        let dispatcher = RpcDispatcher(policies: policies)
        try dispatcher.register(alpha)
        try dispatcher.register(CountingBackend(key: gamma, counter: counter))
        return dispatcher
    }

    /// `eth_signTransaction` of a complete legacy transfer of `wei` from alpha.
    func transfer(_ wei: String, chain: ChainID = TestChains.base) -> WalletRpcAction {
        Actions.signTransaction(Actions.legacyTransactionJSON(from: alpha.address, value: wei), chain: chain)
    }

    /// Expects `actions` to be refused by `policy` at `index`; no backend call.
    func expectRefusal(
        _ dispatcher: RpcDispatcher, _ counter: CallCounter, _ actions: [WalletRpcAction], index: Int, policy: String,
        reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let error = await #expect(throws: DispatchError.self, sourceLocation: sourceLocation) {
            try await dispatcher.sign(actions: actions)
        }
        #expect(
            error
                == DispatchError(
                    index: index, method: actions[index].method, kind: .policyViolation(policy: policy, reason: reason)),
            sourceLocation: sourceLocation)
        #expect(
            error?.description == "action[\(index)] (\(actions[index].method)): refused by policy \(policy): \(reason)",
            sourceLocation: sourceLocation)
        #expect(counter.calls == 0, "a backend was called for \(counter.indices)", sourceLocation: sourceLocation)
    }

    @Test("AllowedChains")
    func allowedChains() async throws {
        let counter = CallCounter()
        let dispatcher = try dispatcher(counter: counter) { AllowedChains([TestChains.base, TestChains.mainnet]) }
        let actions = [
            Actions.personal("a", gamma.address), Actions.personal("b", gamma.address, chain: TestChains.mainnet),
            Actions.personal("c", gamma.address, chain: TestChains.optimism),
        ]
        await expectRefusal(
            dispatcher, counter, actions, index: 2, policy: "AllowedChains", reason: "chain eip155:10 is not allowed")
        _ = try await dispatcher.sign(actions: Array(actions.prefix(2)))
        #expect(counter.calls == 2)
    }

    @Test("AllowedMethods")
    func allowedMethods() async throws {
        let counter = CallCounter()
        let dispatcher = try dispatcher(counter: counter) { AllowedMethods([.personalSign, .signTypedDataV4]) }
        let actions = [Actions.typedData(gamma.address), Actions.personal("a", gamma.address), transfer("0x1")]
        await expectRefusal(
            dispatcher, counter, actions, index: 2, policy: "AllowedMethods",
            reason: "method eth_signTransaction is not allowed")
    }

    @Test("NativeValueCap: the cap itself passes, one wei more is refused; messages carry no value")
    func nativeValueCap() async throws {
        let counter = CallCounter()
        let dispatcher = try dispatcher(counter: counter) { NativeValueCap(maximumWei: Self.cap) }
        let atCap = transfer(Self.cap.hexQuantity)
        let signed = try await dispatcher.sign(actions: [Actions.personal("free", alpha.address), atCap])
        #expect(signed.count == 2)
        let over = try #require(Self.cap.adding(UInt256(1)))
        await expectRefusal(
            dispatcher, counter, [Actions.personal("m", gamma.address), atCap, transfer(over.decimalString)], index: 2,
            policy: "NativeValueCap", reason: "value \(over) wei exceeds the cap of \(Self.cap) wei")
    }

    @Test("A PolicyRule closure names itself in the error")
    func closureRule() async throws {
        let counter = CallCounter()
        let dispatcher = try dispatcher(counter: counter) {
            PolicyRule("no typed data for gamma") { request in
                request.account == gamma.address && request.method == .signTypedDataV4
                    ? .fail(reason: "gamma signs only messages") : .pass
            }
        }
        let actions = [
            Actions.typedData(alpha.address), Actions.personal("ok", gamma.address), Actions.typedData(gamma.address),
        ]
        await expectRefusal(
            dispatcher, counter, actions, index: 2, policy: "no typed data for gamma",
            reason: "gamma signs only messages")
        _ = try await dispatcher.sign(actions: Array(actions.prefix(2)))
        #expect(counter.calls == 1)
    }

    @Test("Builder: several policies, if/else and for; every policy sees every action", arguments: [true, false])
    func builder(strict: Bool) async throws {
        let counter = CallCounter()
        let blockedWords = ["drain", "approve all"]
        let dispatcher = try dispatcher(counter: counter) {
            AllowedChains([TestChains.base, TestChains.mainnet])
            if strict {
                NativeValueCap(maximumWei: Self.cap)
            } else {
                AllowedMethods(Set(RpcMethod.allCases))
            }
            for word in blockedWords {
                PolicyRule("no '\(word)'") { request in
                    guard case .personalMessage(let bytes, _) = request.payload else { return .pass }
                    return String(decoding: bytes, as: UTF8.self).contains(word)
                        ? .fail(reason: "message mentions \(word)") : .pass
                }
            }
        }
        let big = transfer("1000000000000000000")
        if strict {
            await expectRefusal(
                dispatcher, counter, [Actions.personal("hello", gamma.address), big], index: 1,
                policy: "NativeValueCap",
                reason: "value 1000000000000000000 wei exceeds the cap of \(Self.cap) wei")
        } else {
            let signed = try await dispatcher.sign(actions: [Actions.personal("hello", gamma.address), big])
            #expect(signed.count == 2)
            #expect(counter.calls == 1)
        }
        let calls = counter.calls
        let error = await #expect(throws: DispatchError.self) {
            try await dispatcher.sign(actions: [
                Actions.personal("fine", gamma.address), Actions.personal("please approve all", gamma.address),
            ])
        }
        #expect(error?.kind == .policyViolation(policy: "no 'approve all'", reason: "message mentions approve all"))
        #expect(error?.index == 1)
        #expect(counter.calls == calls)
    }

    @Test("Policies run after resolution and routing: an unknown account is reported, not a policy")
    func policyAfterRouting() async throws {
        let counter = CallCounter()
        let dispatcher = try dispatcher(counter: counter) {
            PolicyRule("refuse everything") { _ in .fail(reason: "no") }
        }
        let stranger = try TestKeys.key(TestKeys.betaHex).address
        let error = await #expect(throws: DispatchError.self) {
            try await dispatcher.sign(actions: [Actions.personal("x", stranger)])
        }
        #expect(error?.kind == .unknownAccount(stranger, registered: []))
        await expectRefusal(
            dispatcher, counter, [Actions.personal("x", gamma.address)], index: 0, policy: "refuse everything",
            reason: "no")
    }

    @Test("A custom ActionPolicy type gets its type name by default")
    func customPolicyType() async throws {
        struct OnlyMainnetTypedData: ActionPolicy {
            func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
                request.method != .signTypedDataV4 || request.chainId == UInt256(1)
                    ? .pass : .fail(reason: "typed data off mainnet")
            }
        }
        let counter = CallCounter()
        let dispatcher = try dispatcher(counter: counter) { OnlyMainnetTypedData() }
        await expectRefusal(
            dispatcher, counter,
            [
                Actions.typedData(gamma.address),
                Actions.typedData(gamma.address, chain: TestChains.base, chainIdJSON: "8453"),
            ],
            index: 1, policy: "OnlyMainnetTypedData", reason: "typed data off mainnet")
    }
}
