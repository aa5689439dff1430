import EthereumPrimitives
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Synchronization
import Testing

/// `prepare(actions:admit:)` then `sign(_:)`: the resolved requests are seen before anything is signed,
/// the admission check runs before the policies, and a refusal signs nothing.
@Suite("Prepare, then sign")
struct PrepareThenSignTests {
    let gamma: PrivateKey
    let delta: PrivateKey

    init() throws {
        gamma = try TestKeys.key(TestKeys.gammaHex)
        delta = try TestKeys.key(TestKeys.deltaHex)
    }

    @Test("the prepared batch shows each request and backend; signing it gives what sign(actions:) gives")
    func prepareThenSign() async throws {
        let counter = CallCounter()
        let dispatcher = RpcDispatcher()
        try dispatcher.register(CountingBackend(key: gamma, counter: counter))
        try dispatcher.register(CountingBackend(key: delta, counter: counter))
        let actions = [
            Actions.personal("0x68656c6c6f", gamma.address), Actions.typedData(delta.address),
            Actions.personal("hello", delta.address),
        ]
        let prepared = try await dispatcher.prepare(actions: actions)
        #expect(prepared.requests.map(\.account) == [gamma.address, delta.address, delta.address])
        #expect(prepared.requests.map(\.method) == [.personalSign, .signTypedDataV4, .personalSign])
        #expect(prepared.backendNames == ["CountingBackend", "CountingBackend", "CountingBackend"])
        #expect(prepared.requests[1].preview.kind == .typedData)
        #expect(counter.calls == 0, "preparing signs nothing")
        let signed = try await dispatcher.sign(prepared)
        #expect(counter.calls == 3)
        #expect(signed.answers(actions))
        let direct = try await dispatcher.sign(actions: actions)
        #expect(signed.results == direct.results, "RFC 6979: the same signatures either way")
    }

    @Test("an admission refusal names the action, comes before the policies and signs nothing")
    func admissionRefusal() async throws {
        let counter = CallCounter()
        let policy = CountingPolicy()
        let dispatcher = RpcDispatcher { policy }
        try dispatcher.register(CountingBackend(key: gamma, counter: counter))
        try dispatcher.register(CountingBackend(key: delta, counter: counter))
        let actions = [Actions.personal("0x01", gamma.address), Actions.personal("0x02", delta.address)]
        let refused = delta.address
        let error = await #expect(throws: DispatchError.self) {
            _ = try await dispatcher.prepare(actions: actions) { request in
                request.account == refused ? "may not sign with \(request.account)" : nil
            }
        }
        #expect(error?.index == 1)
        #expect(error?.kind == .notPermitted("may not sign with \(refused)"))
        #expect(error?.description.contains("not permitted: may not sign with") == true, "\(String(describing: error))")
        #expect(policy.evaluated.withLock { $0 } == 1, "the policy saw action 0 only: admission runs first")
        #expect(counter.calls == 0)
    }
}

/// A policy that passes everything and counts its evaluations.
private final class CountingPolicy: ActionPolicy {
    let evaluated = Mutex(0)

    func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        evaluated.withLock { $0 += 1 }
        return .pass
    }
}
