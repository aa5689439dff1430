import EthereumPrimitives
import EthereumTransactions
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Synchronization
import Testing

/// Results in action order, all-or-nothing, and every refusal decided before any backend is called.
@Suite("Ordering and all-or-nothing")
struct OrderingTests {
    let alpha: SoftwareKeySigner
    let gamma: PrivateKey
    let delta: PrivateKey

    init() throws {
        alpha = try TestKeys.signer(TestKeys.alphaHex)
        gamma = try TestKeys.key(TestKeys.gammaHex)
        delta = try TestKeys.key(TestKeys.deltaHex)
    }

    /// Action `i` of a mixed batch: alternating the software key and the delayed backend, messages and typed data.
    func mixedAction(_ i: Int) -> (action: WalletRpcAction, signer: Address, digest: Digest32) {
        let signer = i % 2 == 0 ? alpha.address : gamma.address
        if i % 3 == 0 {
            let contents = "mail \(i)"
            let digest = (try? MailExample.digest(contents: contents)) ?? Digest32()
            return (Actions.typedData(signer, contents: contents), signer, digest)
        }
        let message = "message \(i)"
        return (
            Actions.personal(message, signer, chain: TestChains.mainnet), signer,
            PersonalMessage.digest(Array(message.utf8))
        )
    }

    @Test("A slow custom backend mixed with a software key: results come back in action order", arguments: [4, 17, 40])
    func orderWithRandomDelays(count: Int) async throws {
        let counter = CallCounter()
        let dispatcher = RpcDispatcher()
        try dispatcher.register(alpha)
        try dispatcher.register(DelayedKeyBackend(key: gamma, counter: counter, maximumTurns: 60))
        let batch = (0..<count).map(mixedAction)
        for _ in 0..<3 {
            let signed = try await dispatcher.sign(actions: batch.map(\.action))
            #expect(signed.count == count)
            #expect(signed.answers(batch.map(\.action)))
            for (index, expected) in batch.enumerated() {
                try expectSignature(signed.results[index], by: expected.signer, over: expected.digest)
            }
        }
        #expect(counter.calls == 3 * batch.filter { $0.signer == gamma.address }.count)
    }

    @Test("Backends run concurrently: all eight calls are in flight at once")
    func concurrentBackends() async throws {
        let rendezvous = Rendezvous(expected: 8)
        let dispatcher = RpcDispatcher()
        try dispatcher.register(RendezvousBackend(key: gamma, rendezvous: rendezvous))
        let actions = (0..<8).map { Actions.personal("m\($0)", gamma.address) }
        let signing = Task { try await dispatcher.sign(actions: actions) }
        // The calls arrive at the scheduler's pace (the bound only ends the hang of calls that never overlap:
        // the first would wait for the others for ever).
        let met = await RealTime.poll(within: .seconds(30)) { rendezvous.arrived >= 8 }
        if !met { rendezvous.releaseAll() }
        let signed = try await signing.value
        #expect(met, "only \(rendezvous.arrived) of the 8 calls arrived while the first waited")
        #expect(rendezvous.maximumInFlight == 8)
        for (i, result) in signed.results.enumerated() {
            try expectSignature(result, by: gamma.address, over: PersonalMessage.digest(Array("m\(i)".utf8)))
        }
    }

    @Test(
        "A failing backend at index k: DispatchError names k and the method; nothing is returned", arguments: [0, 3, 7])
    func failureAtIndex(k: Int) async throws {
        let rejections = CallCounter()
        let dispatcher = RpcDispatcher()
        try dispatcher.register(alpha)
        try dispatcher.register(DelayedKeyBackend(key: gamma, maximumTurns: 30))
        try dispatcher.register(RejectingBackend(account: delta.address, counter: rejections))
        var actions = (0..<8).map { mixedAction($0).action }
        actions[k] = Actions.typedData(delta.address)
        var returned: SignedActions?
        let error = await #expect(throws: DispatchError.self) { returned = try await dispatcher.sign(actions: actions) }
        #expect(returned == nil)
        #expect(
            error
                == DispatchError(
                    index: k, method: "eth_signTypedData_v4", kind: .backend(.rejected("user declined action \(k)"))))
        #expect(error?.description == "action[\(k)] (eth_signTypedData_v4): rejected: user declined action \(k)")
        #expect(rejections.indices == [k])
    }

    @Test("A failure cancels the other backends instead of waiting for them")
    func failureCancelsTheRest() async throws {
        let slow = SlowCancellableBackend(key: gamma)
        let dispatcher = RpcDispatcher()
        try dispatcher.register(slow)
        try dispatcher.register(RejectingBackend(account: delta.address, counter: CallCounter()))
        let actions = [
            Actions.personal("slow 0", gamma.address), Actions.personal("no", delta.address),
            Actions.personal("slow 2", gamma.address), Actions.personal("slow 3", gamma.address),
        ]
        let error = await #expect(throws: DispatchError.self) { try await dispatcher.sign(actions: actions) }
        #expect(error?.index == 1)
        // The slow backends wait until they are cancelled (and count it), and sign returns only after every
        // backend has returned: three cancellations mean no waiting for them.
        #expect(slow.cancellations.withLock { $0 } == 3)
    }

    @Test(
        "Refuse before signing: a bad action at the END means no backend was called",
        arguments: [2, 9])
    func refuseBeforeSigning(goodCount: Int) async throws {
        let counter = CallCounter()
        let dispatcher = RpcDispatcher()
        try dispatcher.register(CountingBackend(key: gamma, counter: counter))
        try dispatcher.register(alpha, chains: [TestChains.base, TestChains.mainnet])
        let good = (0..<goodCount).map { Actions.personal("ok \($0)", gamma.address, chain: TestChains.base) }
        let stranger = try TestKeys.key(TestKeys.betaHex).address
        let bad: [(WalletRpcAction, (DispatchError.Kind) -> Bool)] = [
            (WalletRpcAction(chainId: TestChains.base, method: "eth_sign", params: "[]"), { $0 == .unknownMethod }),
            (
                WalletRpcAction(chainId: TestChains.base, method: .personalSign, params: "[1]"),
                { if case .invalidParams = $0 { true } else { false } }
            ),
            (Actions.personal("hi", stranger), { $0 == .unknownAccount(stranger, registered: []) }),
            (
                Actions.typedData(gamma.address, chain: TestChains.base),
                { if case .chainMismatch = $0 { true } else { false } }
            ),
            (
                Actions.signTransaction(Actions.legacyTransactionJSON(from: alpha.address, chainId: "0x1")),
                { if case .chainMismatch = $0 { true } else { false } }
            ),
            (
                WalletRpcAction(
                    chainId: TestChains.base, method: .sendTransaction,
                    params: "[\(Actions.legacyTransactionJSON(from: alpha.address))]"),
                { $0 == .noNode(TestChains.base.description) }
            ),
        ]
        for (action, matches) in bad {
            let error = await #expect(throws: DispatchError.self) {
                try await dispatcher.sign(actions: good + [action])
            }
            #expect(error?.index == goodCount)
            #expect(error?.method == action.method)
            if let kind = error?.kind { #expect(matches(kind), "\(kind)") }
        }
        #expect(counter.calls == 0, "backend called for \(counter.indices)")
        // The same good actions alone do reach the backend.
        _ = try await dispatcher.sign(actions: good)
        #expect(counter.calls == goodCount)
    }

    @Test("Two bad actions: the error names the first one")
    func firstBadActionWins() async throws {
        let dispatcher = RpcDispatcher()
        try dispatcher.register(alpha)
        let stranger = try TestKeys.key(TestKeys.betaHex).address
        var actions = (0..<10).map { Actions.personal("ok \($0)", alpha.address) }
        actions[8] = Actions.personal("x", stranger)
        actions[4] = WalletRpcAction(chainId: TestChains.base, method: "eth_sign", params: "[]")
        let error = await #expect(throws: DispatchError.self) { try await dispatcher.sign(actions: actions) }
        #expect(error == DispatchError(index: 4, method: "eth_sign", kind: .unknownMethod))
    }

    @Test(
        "domain.chainId as a number, decimal string or hex string must match the CAIP-2 chain",
        arguments: ["1", #""1""#, #""0x1""#])
    func domainChainMismatch(chainIdJSON: String) async throws {
        let dispatcher = RpcDispatcher()
        try dispatcher.register(alpha)
        let action = Actions.typedData(alpha.address, chain: TestChains.base, chainIdJSON: chainIdJSON)
        let error = await #expect(throws: DispatchError.self) {
            try await dispatcher.sign(actions: [Actions.personal("fine", alpha.address), action])
        }
        #expect(
            error
                == DispatchError(
                    index: 1, method: "eth_signTypedData_v4",
                    kind: .chainMismatch(field: "domain.chainId", expected: "eip155:8453", actual: "1")))
        #expect(
            error?.description
                == "action[1] (eth_signTypedData_v4): domain.chainId 1 differs from the action's chain eip155:8453")
        // The same document on eip155:1 signs.
        let signed = try await dispatcher.sign(actions: [Actions.typedData(alpha.address, chainIdJSON: chainIdJSON)])
        try expectSignature(signed.results[0], by: alpha.address, over: try Bytes32(hex: MailExample.digestOnChain1))
    }

    @Test("domain.chainId that matches, in all three spellings, signs the same digest")
    func domainChainMatches() async throws {
        let dispatcher = RpcDispatcher()
        try dispatcher.register(alpha)
        let spellings = ["8453", #""8453""#, #""0x2105""#]
        let signed = try await dispatcher.sign(
            actions: spellings.map { Actions.typedData(alpha.address, chain: TestChains.base, chainIdJSON: $0) })
        let digest = try MailExample.digest(chainIdJSON: "8453")
        for result in signed.results { try expectSignature(result, by: alpha.address, over: digest) }
        #expect(Set(signed.results).count == 1)
    }

    @Test("A transaction's chainId must match the CAIP-2 chain")
    func transactionChainMismatch() async throws {
        let dispatcher = RpcDispatcher()
        try dispatcher.register(alpha)
        let mismatch = Actions.signTransaction(Actions.legacyTransactionJSON(from: alpha.address, chainId: "0x1"))
        let error = await #expect(throws: DispatchError.self) { try await dispatcher.sign(actions: [mismatch]) }
        #expect(
            error
                == DispatchError(
                    index: 0, method: "eth_signTransaction",
                    kind: .chainMismatch(field: "transaction.chainId", expected: "eip155:8453", actual: "1")))
        let matching = Actions.signTransaction(Actions.legacyTransactionJSON(from: alpha.address, chainId: "0x2105"))
        let signed = try await dispatcher.sign(actions: [matching])
        let decoded = try SignedTransaction.decode(hex: signed.results[0])
        #expect(decoded.transaction.chainId == UInt256(8453))
        #expect(try decoded.recoverSender() == alpha.address)
    }

    @Test("Params for an address with no backend: unknownAccount, never another account's backend")
    func paramsAddressWithoutBackend() async throws {
        let counter = CallCounter()
        let dispatcher = RpcDispatcher()
        try dispatcher.register(CountingBackend(key: gamma, counter: counter))
        let stranger = try TestKeys.key(TestKeys.betaHex).address
        for action in [
            Actions.personal("hi", stranger), Actions.typedData(stranger),
            Actions.signTransaction(Actions.legacyTransactionJSON(from: stranger)),
        ] {
            let error = await #expect(throws: DispatchError.self) {
                try await dispatcher.sign(actions: [Actions.personal("ok", gamma.address), action])
            }
            #expect(error?.index == 1)
            #expect(error?.kind == .unknownAccount(stranger, registered: []))
        }
        #expect(counter.calls == 0)
    }

    @Test("A backend registered for B that holds A's key refuses B's params (the key checks the account)")
    func miswiredBackend() async throws {
        let beta = try TestKeys.key(TestKeys.betaHex).address
        let dispatcher = RpcDispatcher()
        try dispatcher.register(MiswiredBackend(claimed: beta, inner: PrehashBackend(alpha)))
        let error = await #expect(throws: DispatchError.self) {
            try await dispatcher.sign(actions: [Actions.personal("for beta", beta)])
        }
        #expect(error?.index == 0)
        #expect(
            error?.kind == .backend(.invalidRequest("account \(beta) is not this key's address \(alpha.address)")),
            "\(String(describing: error))")
    }
}

/// Counts calls in flight; each call waits until `expected` calls have arrived: a barrier without a clock.
/// If the calls never overlap, the first waits for ever: the test ends that hang with ``releaseAll()``.
final class Rendezvous: Sendable {
    private struct State {
        var arrived = 0
        var inFlight = 0
        var maximumInFlight = 0
        var released = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    let expected: Int
    private let state = Mutex(State())

    init(expected: Int) { self.expected = expected }

    var arrived: Int { state.withLock { $0.arrived } }
    var maximumInFlight: Int { state.withLock { $0.maximumInFlight } }

    /// Enters, waits for the others (or for ``releaseAll()``), leaves.
    func meet() async {
        await withCheckedContinuation { continuation in
            let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.arrived += 1
                state.inFlight += 1
                state.maximumInFlight = max(state.maximumInFlight, state.inFlight)
                state.waiting.append(continuation)
                guard state.arrived >= expected || state.released else { return [] }
                defer { state.waiting = [] }
                return state.waiting
            }
            for waiter in released { waiter.resume() }
        }
        state.withLock { $0.inFlight -= 1 }
    }

    /// Lets every call waiting now, and every later one, go on.
    func releaseAll() {
        let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.released = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in released { waiter.resume() }
    }
}

/// Signs messages once every call of the batch has reached it: only possible if the calls overlap.
struct RendezvousBackend: WalletRpcSigner {
    let key: PrivateKey
    let rendezvous: Rendezvous
    var accounts: [Address] { [key.address] }
    var methods: Set<RpcMethod> { [.personalSign] }

    func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        await rendezvous.meet()
        guard case .personalMessage(_, let digest) = request.payload else {
            throw .unsupportedMethod(request.method.rawValue)
        }
        return .signature(key.sign(prehash: digest))
    }
}

/// Waits until cancelled; counts cancellations.
final class SlowCancellableBackend: WalletRpcSigner {
    let key: PrivateKey
    let cancellations = Mutex(0)
    var accounts: [Address] { [key.address] }
    var methods: Set<RpcMethod> { [.personalSign] }

    init(key: PrivateKey) { self.key = key }

    func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        await untilCancelled()
        cancellations.withLock { $0 += 1 }
        throw .backendFailure("cancelled")
    }
}
