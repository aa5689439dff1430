import EthereumPrimitives
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// Routing by (account, chain, method) and the claims checked at registration.
@Suite("Registration and routing")
struct RegistrationTests {
    @Test("Routes by account, chain and method; each action reaches the backend that claims it")
    func routing() async throws {
        let alpha = try TestKeys.signer(TestKeys.alphaHex)
        let betaKey = try TestKeys.key(TestKeys.betaHex)
        let counter = CallCounter()
        let dispatcher = RpcDispatcher()
        // alpha: a software key for typed data everywhere; a counting backend signs alpha's personal_sign.
        try dispatcher.register(alpha, methods: [.signTypedDataV4])
        let alphaMessages = CountingBackend(key: alpha.privateKey, counter: counter)
        try dispatcher.register(
            ClaimRouted(inner: alphaMessages, methods: [.personalSign], chains: nil))
        // beta: its key only on Base.
        try dispatcher.register(SoftwareKeySigner(privateKey: betaKey), chains: [TestChains.base])

        #expect(
            dispatcher.backend(for: alpha.address, chain: TestChains.mainnet, method: .signTypedDataV4)?.name
                == "PrehashBackend(SoftwareKeySigner)")
        #expect(
            dispatcher.backend(for: alpha.address, chain: TestChains.mainnet, method: .personalSign)?.name
                == "ClaimRouted")
        #expect(dispatcher.backend(for: alpha.address, chain: TestChains.base, method: .signTransaction) == nil)
        #expect(dispatcher.backend(for: betaKey.address, chain: TestChains.base, method: .personalSign) != nil)
        #expect(dispatcher.backend(for: betaKey.address, chain: TestChains.optimism, method: .personalSign) == nil)

        let actions = [
            Actions.typedData(alpha.address),
            Actions.personal("to the counting backend", alpha.address),
            Actions.personal("beta on base", betaKey.address, chain: TestChains.base),
            Actions.personal("again", alpha.address, chain: TestChains.optimism),
        ]
        let signed = try await dispatcher.sign(actions: actions)
        #expect(counter.calls == 2)
        #expect(Set(counter.indices) == [1, 3])
        try expectSignature(signed.results[0], by: alpha.address, over: try MailExample.digest())
        try expectSignature(
            signed.results[1], by: alpha.address, over: PersonalMessage.digest(Array("to the counting backend".utf8)))
        try expectSignature(
            signed.results[2], by: betaKey.address, over: PersonalMessage.digest(Array("beta on base".utf8)))
        try expectSignature(signed.results[3], by: alpha.address, over: PersonalMessage.digest(Array("again".utf8)))
    }

    @Test("An account nobody claims (or not on this chain, or not for this method) is a typed error")
    func unknownAccount() async throws {
        let alpha = try TestKeys.signer(TestKeys.alphaHex)
        let beta = try TestKeys.signer(TestKeys.betaHex)
        let dispatcher = RpcDispatcher()
        try dispatcher.register(alpha, chains: [TestChains.base], methods: [.personalSign])

        let stranger = await #expect(throws: DispatchError.self) {
            try await dispatcher.sign(actions: [
                Actions.personal("hi", alpha.address), Actions.personal("hi", beta.address),
            ])
        }
        #expect(
            stranger
                == DispatchError(index: 1, method: "personal_sign", kind: .unknownAccount(beta.address, registered: []))
        )
        #expect(
            stranger?.description
                == "action[1] (personal_sign): no backend registered for account \(beta.address.checksummed)")

        let otherChain = await #expect(throws: DispatchError.self) {
            try await dispatcher.sign(actions: [Actions.personal("hi", alpha.address, chain: TestChains.optimism)])
        }
        let registration = AccountRegistration(chains: [TestChains.base], methods: [.personalSign])
        #expect(otherChain?.kind == .unknownAccount(alpha.address, registered: [registration]))
        #expect(
            otherChain?.description
                == "action[0] (personal_sign): no backend registered for account \(alpha.address.checksummed) on this "
                + "chain with this method; it is registered for eip155:8453 (personal_sign)")

        let otherMethod = await #expect(throws: DispatchError.self) {
            try await dispatcher.sign(actions: [
                Actions.typedData(alpha.address, chain: TestChains.base, chainIdJSON: "8453")
            ])
        }
        #expect(otherMethod?.kind == .unknownAccount(alpha.address, registered: [registration]))
    }

    @Test(
        "Two backends claiming one account for overlapping chains and methods: RegistrationError",
        arguments: [
            (nil, nil, RpcMethod.accountMethods, RpcMethod.accountMethods),
            ([TestChains.base], nil, [.personalSign], [.personalSign, .signTypedDataV4]),
            (nil, [TestChains.optimism], [.signTransaction], [.signTransaction]),
            (
                [TestChains.base, TestChains.optimism], [TestChains.optimism], [.personalSign, .sendTransaction],
                [.sendTransaction]
            ),
        ] as [(Set<ChainID>?, Set<ChainID>?, Set<RpcMethod>, Set<RpcMethod>)])
    func overlappingClaims(
        firstChains: Set<ChainID>?, secondChains: Set<ChainID>?, firstMethods: Set<RpcMethod>,
        secondMethods: Set<RpcMethod>
    ) throws {
        let account = try TestKeys.key(TestKeys.alphaHex).address
        let dispatcher = RpcDispatcher()
        try dispatcher.register(
            ClaimOnlyBackend(name: "first", accounts: [account], methods: firstMethods, chains: firstChains))
        let error = #expect(throws: RegistrationError.self) {
            try dispatcher.register(
                ClaimOnlyBackend(name: "second", accounts: [account], methods: secondMethods, chains: secondChains))
        }
        #expect(error == .accountAlreadyClaimed(account, by: "first"))
        #expect(error?.description == "account \(account.checksummed) is already claimed by backend first")
    }

    @Test("A key registered twice for the same account clashes with itself")
    func keyTwice() throws {
        let alpha = try TestKeys.signer(TestKeys.alphaHex)
        let dispatcher = RpcDispatcher()
        try dispatcher.register(alpha)
        let error = #expect(throws: RegistrationError.self) { try dispatcher.register(alpha) }
        #expect(error == .accountAlreadyClaimed(alpha.address, by: "PrehashBackend(SoftwareKeySigner)"))
    }

    @Test("Non-overlapping claims (different chains, or different methods) both register and both route")
    func disjointClaims() async throws {
        let alpha = try TestKeys.signer(TestKeys.alphaHex)
        let counter = CallCounter()
        let dispatcher = RpcDispatcher()
        try dispatcher.register(alpha, chains: [TestChains.base])
        try dispatcher.register(
            ClaimRouted(
                inner: CountingBackend(key: alpha.privateKey, counter: counter), methods: RpcMethod.accountMethods,
                chains: [TestChains.optimism, TestChains.mainnet]))
        try dispatcher.register(
            ClaimOnlyBackend(
                name: "typed-only on Ronin", accounts: [alpha.address], methods: [.signTypedDataV4],
                chains: [TestChains.roninSaigon]))
        try dispatcher.register(
            ClaimOnlyBackend(
                name: "messages on Ronin", accounts: [alpha.address], methods: [.personalSign],
                chains: [TestChains.roninSaigon]))

        let signed = try await dispatcher.sign(actions: [
            Actions.personal("base", alpha.address, chain: TestChains.base),
            Actions.personal("optimism", alpha.address, chain: TestChains.optimism),
        ])
        #expect(counter.indices == [1])
        try expectSignature(signed.results[0], by: alpha.address, over: PersonalMessage.digest(Array("base".utf8)))
        try expectSignature(signed.results[1], by: alpha.address, over: PersonalMessage.digest(Array("optimism".utf8)))
        #expect(
            dispatcher.backend(for: alpha.address, chain: TestChains.roninSaigon, method: .personalSign)?.name
                == "messages on Ronin")
    }

    @Test("A clash on one account registers none of the backend's accounts; empty claims are refused")
    func atomicRegistration() throws {
        let alpha = try TestKeys.key(TestKeys.alphaHex).address
        let beta = try TestKeys.key(TestKeys.betaHex).address
        let dispatcher = RpcDispatcher()
        try dispatcher.register(
            ClaimOnlyBackend(name: "alpha", accounts: [alpha], methods: [.personalSign], chains: nil))
        #expect(throws: RegistrationError.accountAlreadyClaimed(alpha, by: "alpha")) {
            try dispatcher.register(
                ClaimOnlyBackend(name: "both", accounts: [beta, alpha], methods: [.personalSign], chains: nil))
        }
        #expect(dispatcher.backend(for: beta, chain: TestChains.base, method: .personalSign) == nil)

        #expect(throws: RegistrationError.emptyClaim("nobody")) {
            try dispatcher.register(
                ClaimOnlyBackend(name: "nobody", accounts: [], methods: [.personalSign], chains: nil))
        }
        #expect(throws: RegistrationError.emptyClaim("nothing")) {
            try dispatcher.register(ClaimOnlyBackend(name: "nothing", accounts: [beta], methods: [], chains: nil))
        }
    }
}

/// Re-claims another backend's work for chosen methods and chains.
struct ClaimRouted<Inner: WalletRpcSigner>: WalletRpcSigner {
    let inner: Inner
    let methods: Set<RpcMethod>
    let chains: Set<ChainID>?
    var name: String { "ClaimRouted" }
    var accounts: [Address] { inner.accounts }

    func handle(_ request: ResolvedRequest) async throws(SignerError) -> ActionResult {
        try await inner.handle(request)
    }
}
