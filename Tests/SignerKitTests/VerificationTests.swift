import EthereumPrimitives
import EthereumTransactions
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// Backends that lie. The dispatcher must refuse each lie with `.verificationFailed` naming the index, and
/// return nothing, whatever the backend.
@Suite("Verify before bundling")
struct VerificationTests {
    /// Claims `address`, signs with `key`.
    struct WrongKeySigner: PrehashSigner {
        let address: Address
        let key: PrivateKey
        func sign(prehash: Digest32) async throws(SignerError) -> RecoverableSignature { key.sign(prehash: prehash) }
    }

    /// Signs correctly, then returns the high-s twin (same key, s → n − s, recovery id flipped).
    struct HighSSigner: PrehashSigner {
        let key: PrivateKey
        var address: Address { key.address }
        func sign(prehash: Digest32) async throws(SignerError) -> RecoverableSignature {
            highS(key.sign(prehash: prehash))
        }
    }

    /// Answers every method with whatever `answer` makes of the request.
    struct ScriptedBackend: WalletRpcSigner {
        let account: Address
        let answer: @Sendable (ResolvedRequest) -> ActionResult
        var accounts: [Address] { [account] }
        var methods: Set<RpcMethod> { RpcMethod.accountMethods }
        func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult { answer(request) }
    }

    /// The high-s twin of a low-s signature.
    static func highS(_ signature: RecoverableSignature) -> RecoverableSignature {
        let n = Array(Secp256k1Order.order.word.bytes)
        let s = Array(signature.s.bytes)
        var difference = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for position in (0..<32).reversed() {
            var value = Int(n[position]) - Int(s[position]) - borrow
            borrow = value < 0 ? 1 : 0
            if value < 0 { value += 256 }
            difference[position] = UInt8(value)
        }
        guard let twinS = Bytes32(difference),
            let twin = try? RecoverableSignature(r: signature.r, s: twinS, recoveryId: signature.recoveryId ^ 1)
        else { preconditionFailure("n - s fits in 32 bytes") }
        return twin
    }

    let alpha: SoftwareKeySigner
    let beta: PrivateKey

    init() throws {
        alpha = try TestKeys.signer(TestKeys.alphaHex)
        beta = try TestKeys.key(TestKeys.betaHex)
    }

    /// Signs `actions` with `dispatcher`, expecting a `.verificationFailed` at `index` whose reason contains
    /// `reasonPart`.
    func expectRefused(
        _ actions: [WalletRpcAction], by dispatcher: RpcDispatcher, at index: Int, reasonPart: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        do {
            let signed = try await dispatcher.sign(actions: actions)
            Issue.record("a bundle came back: \(signed.results)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.index == index, "\(error)", sourceLocation: sourceLocation)
            guard case .verificationFailed(let reason) = error.kind else {
                Issue.record("expected .verificationFailed, got \(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(reason.contains(reasonPart), "\(reason)", sourceLocation: sourceLocation)
            #expect(error.description.hasPrefix("action[\(index)] "), sourceLocation: sourceLocation)
        }
    }

    @Test("A PrehashSigner that signs with another key than its address is refused, in a batch that is otherwise fine")
    func wrongKey() async throws {
        let impostor = WrongKeySigner(address: try TestKeys.key(TestKeys.gammaHex).address, key: beta)
        let dispatcher = RpcDispatcher()
        try dispatcher.register(alpha)
        try dispatcher.register(impostor)
        await expectRefused(
            [
                Actions.personal("fine", alpha.address), Actions.personal("lie", impostor.address),
                Actions.typedData(alpha.address, chain: TestChains.base, chainIdJSON: "8453"),
            ], by: dispatcher, at: 1, reasonPart: "signature is by \(beta.address.checksummed)")
    }

    @Test("A PrehashSigner that returns the high-s twin of a valid signature is refused")
    func highS() async throws {
        let key = try TestKeys.key(TestKeys.deltaHex)
        let signer = HighSSigner(key: key)
        let sample = Self.highS(key.sign(prehash: Keccak256.hash(Array("x".utf8))))
        #expect(!sample.isLowS)
        #expect(
            try ECDSA.recoverAddress(prehash: Keccak256.hash(Array("x".utf8)), signature: sample) == key.address)
        let dispatcher = RpcDispatcher()
        try dispatcher.register(signer)
        await expectRefused(
            [Actions.personal("twin", key.address)], by: dispatcher, at: 0, reasonPart: "high s")
    }

    @Test("A WalletRpcSigner that answers personal_sign with a transaction hash is refused")
    func wrongKind() async throws {
        let account = try TestKeys.key(TestKeys.gammaHex).address
        let dispatcher = RpcDispatcher()
        try dispatcher.register(
            ScriptedBackend(account: account) { _ in .transactionHash(Keccak256.hash(Array("not a signature".utf8))) })
        await expectRefused(
            [Actions.personal("hi", account)], by: dispatcher, at: 0,
            reasonPart: "personal_sign must return a signature, got a transaction hash")
    }

    @Test("eth_sendTransaction answered with a signature, eth_signTransaction with a hash: refused")
    func wrongKindForTransactions() async throws {
        let key = try TestKeys.key(TestKeys.gammaHex)
        let dispatcher = RpcDispatcher()
        try dispatcher.register(ScriptedBackend(account: key.address) { _ in .signature(key.sign(prehash: Bytes32())) })
        let send = WalletRpcAction(
            chainId: TestChains.base, method: .sendTransaction,
            params: "[\(Actions.legacyTransactionJSON(from: key.address))]")
        await expectRefused(
            [send], by: dispatcher, at: 0, reasonPart: "eth_sendTransaction must return a transaction hash")
        let other = RpcDispatcher()
        try other.register(ScriptedBackend(account: key.address) { _ in .transactionHash(Bytes32()) })
        await expectRefused(
            [Actions.signTransaction(Actions.legacyTransactionJSON(from: key.address))], by: other, at: 0,
            reasonPart: "eth_signTransaction must return a raw signed transaction")
    }

    /// The complete legacy transaction of `Actions.legacyTransactionJSON(from:)` on Base, with `value`.
    static func transaction(value: UInt256 = UInt256(10_000_000_000_000_000)) -> Transaction {
        .legacy(
            LegacyTransaction(
                nonce: 7, gasPrice: 1_000_000_000, gasLimit: 21_000, to: Actions.recipient, value: value, data: [],
                chainId: 8453))
    }

    @Test("eth_signTransaction: a raw transaction for another account, or for another request, is refused")
    func rawTransactionLies() async throws {
        let key = try TestKeys.key(TestKeys.gammaHex)
        let action = Actions.signTransaction(Actions.legacyTransactionJSON(from: key.address))
        let other = beta
        let cases: [(String, @Sendable (ResolvedRequest) -> ActionResult)] = [
            (
                "is signed by \(other.address.checksummed)",
                { _ in .rawTransaction(Self.transaction().sign(with: other).rawTransaction) }
            ),
            ("value 1 differs", { _ in .rawTransaction(Self.transaction(value: 1).sign(with: key).rawTransaction) }),
            ("does not decode", { _ in .rawTransaction([0xf8, 0x01]) }),
        ]
        for (reason, answer) in cases {
            let dispatcher = RpcDispatcher()
            try dispatcher.register(ScriptedBackend(account: key.address, answer: answer))
            await expectRefused([action], by: dispatcher, at: 0, reasonPart: reason)
        }
        // The honest answer goes through.
        let dispatcher = RpcDispatcher()
        try dispatcher.register(
            ScriptedBackend(account: key.address) { _ in
                .rawTransaction(Self.transaction().sign(with: key).rawTransaction)
            })
        let signed = try await dispatcher.sign(actions: [action])
        #expect(signed.results == [Self.transaction().sign(with: key).rawTransactionHex])
    }

    @Test("SignedActions.verifying bundles results made elsewhere only when every one verifies")
    func verifyingResultsMadeElsewhere() async throws {
        let key = try TestKeys.key(TestKeys.alphaHex)
        let actions = [
            Actions.personal("made elsewhere", key.address),
            Actions.typedData(key.address, chain: TestChains.base, chainIdJSON: "8453"),
            Actions.signTransaction(Actions.legacyTransactionJSON(from: key.address)),
            WalletRpcAction(
                chainId: TestChains.base, method: .sendTransaction,
                params: "[\(Actions.legacyTransactionJSON(from: key.address))]"),
        ]
        let typedDigest = try MailExample.digest(chainIdJSON: "8453")
        let raw = Self.transaction().sign(with: key)
        let results = [
            key.sign(prehash: personalDigest(bytes: Array("made elsewhere".utf8))).hex,
            key.sign(prehash: typedDigest).hex,
            raw.rawTransactionHex, raw.hash.hex,
        ]
        let bundle = try SignedActions.verifying(actions: actions, results: results)
        #expect(bundle.results == results)
        #expect(bundle.answers(actions))

        // The same checks as the dispatcher's, each naming its index.
        var lies = results
        lies[1] = beta.sign(prehash: typedDigest).hex
        #expect(throws: DispatchError.self) { try SignedActions.verifying(actions: actions, results: lies) }
        do { _ = try SignedActions.verifying(actions: actions, results: lies) } catch {
            #expect(error.index == 1)
            guard case .verificationFailed = error.kind else { Issue.record("\(error)"); return }
        }
        for (index, bad) in [(0, "0x1234"), (3, results[0]), (2, results[3])] {
            var wrong = results
            wrong[index] = bad
            do {
                _ = try SignedActions.verifying(actions: actions, results: wrong)
                Issue.record("accepted \(bad) at \(index)")
            } catch {
                #expect(error.index == index, "\(error)")
            }
        }
        do {
            _ = try SignedActions.verifying(actions: actions, results: Array(results.prefix(3)))
            Issue.record("accepted three results for four actions")
        } catch {
            #expect(error.index == nil)
            #expect(error.kind == .invalidAction("3 results for 4 actions"))
        }
    }

    @Test("A backend error can carry its own error type, so causes stay apart")
    func underlyingErrors() async throws {
        enum KMSError: Error, Equatable { case throttled, denied }
        struct KMSBackend: WalletRpcSigner {
            let account: Address
            let failure: KMSError
            var accounts: [Address] { [account] }
            var methods: Set<RpcMethod> { [.personalSign] }
            func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
                throw .underlying("KMS Sign", error: failure)
            }
        }
        let account = try TestKeys.key(TestKeys.gammaHex).address
        for failure in [KMSError.throttled, .denied] {
            let dispatcher = RpcDispatcher()
            try dispatcher.register(KMSBackend(account: account, failure: failure))
            do {
                _ = try await dispatcher.sign(actions: [Actions.personal("x", account)])
                Issue.record("signed")
            } catch {
                guard case .backend(.underlying(_, let underlying)) = error.kind else {
                    Issue.record("\(error)"); return
                }
                #expect(underlying as? KMSError == failure)
            }
        }
        #expect(
            SignerError.underlying("a", error: KMSError.denied)
                != SignerError.underlying("a", error: KMSError.throttled))
    }

    @Test("Registering a backend for a chain that is not eip155 fails at registration")
    func nonEIP155Registration() throws {
        let dispatcher = RpcDispatcher()
        let solana = try ChainID("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp")
        #expect(
            throws: RegistrationError.unsupportedChain(solana.description, backend: "PrehashBackend(SoftwareKeySigner)")
        ) {
            try dispatcher.register(alpha, chains: [solana])
        }
    }

    @Test("A caller that cancels gets .cancelled")
    func cancellation() async throws {
        let account = try TestKeys.key(TestKeys.gammaHex).address
        struct SlowBackend: WalletRpcSigner {
            let account: Address
            let entered: Signal
            var accounts: [Address] { [account] }
            var methods: Set<RpcMethod> { [.personalSign] }
            func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
                entered.fire()
                await untilCancelled()
                throw .backendFailure("interrupted")
            }
        }
        let entered = Signal()
        let dispatcher = RpcDispatcher()
        try dispatcher.register(SlowBackend(account: account, entered: entered))
        let task = Task { () async -> DispatchError? in
            do throws(DispatchError) {
                _ = try await dispatcher.sign(actions: [Actions.personal("a", account), Actions.personal("b", account)])
                return nil
            } catch {
                return error
            }
        }
        await entered.fired()
        task.cancel()
        let error = await task.value
        #expect(error?.kind == .cancelled, "\(String(describing: error))")
    }
}
