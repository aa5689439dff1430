import EthereumPrimitives
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// EIP-5792's `atomic` capability from ``RpcDispatcher/capabilities(of:chains:deadline:)`` on a Prague local
/// EVM: a registered key is `ready` while its code is empty and an allowed delegate executes batches,
/// `supported` once delegated to the allowed executor, and `unsupported` under an empty allow-list, allowed
/// delegates that are no batch executors, a delegation the policy does not allow, a backend that is not a key,
/// or on a chain without a node.
@Suite("wallet_getCapabilities in the dispatcher")
struct CapabilitiesTests {
    /// A chain the dispatchers have no node for.
    static let nodeless = ChainID(eip155: 999_999)

    /// A dispatcher on `setup`'s chain holding `setup.account`, under `policies`.
    static func dispatcher(_ setup: BatchChain, @PolicyBuilder policies: () -> [any ActionPolicy]) throws
        -> RpcDispatcher
    {
        let dispatcher = RpcDispatcher(nodes: [setup.chain: setup.client], policies: policies)
        try dispatcher.register(setup.account)
        return dispatcher
    }

    @Test("ready → delegated to the allowed executor → supported; empty or other allow-lists and no node: unsupported")
    func statesAcrossDelegation() async throws {
        let setup = try await BatchChain.start()
        defer { setup.evm.stop() }
        let account = setup.account.address
        let allowing = try Self.dispatcher(setup) { AllowedDelegates([setup.executor.address]) }
        let empty = try Self.dispatcher(setup) { AllowedDelegates([]) }
        let unpoliced = try Self.dispatcher(setup) {}
        let elsewhere = try Self.dispatcher(setup) { AllowedDelegates([PrivateKey.generate().address]) }
        let chains = [setup.chain, Self.nodeless]

        func atomic(_ dispatcher: RpcDispatcher) async throws -> [ChainID: AtomicCapability] {
            try await dispatcher.capabilities(of: account, chains: chains).mapValues(\.atomic)
        }

        #expect(try await atomic(allowing) == [setup.chain: .ready, Self.nodeless: .unsupported])
        #expect(try await atomic(empty) == [setup.chain: .unsupported, Self.nodeless: .unsupported])
        #expect(try await atomic(unpoliced) == [setup.chain: .unsupported, Self.nodeless: .unsupported])
        // Another delegate is allowed, but it is no batch executor (no code answers supportsExecutionMode).
        #expect(try await atomic(elsewhere) == [setup.chain: .unsupported, Self.nodeless: .unsupported])
        // A delegate allowed beside the executor changes nothing: the executor is the one a batch would use.
        let both = try Self.dispatcher(setup) { AllowedDelegates([setup.executor.address, setup.token]) }
        #expect(try await atomic(both) == [setup.chain: .ready, Self.nodeless: .unsupported])
        let tokenOnly = try Self.dispatcher(setup) { AllowedDelegates([setup.token]) }
        #expect(try await atomic(tokenOnly) == [setup.chain: .unsupported, Self.nodeless: .unsupported])
        // A backend that sends transactions but is not a key (a hosted wallet) cannot sign an authorization.
        let hosted = PrivateKey.generate().address
        let calls = CallCounter()
        try allowing.register(RejectingBackend(account: hosted, counter: calls))
        #expect(
            try await allowing.capabilities(of: hosted, chains: [setup.chain])
                == [setup.chain: AccountCapabilities(atomic: .unsupported)])
        #expect(calls.calls == 0)

        let delegated = try await setup.send(
            from: setup.account, to: account, data: ERC7821Batch(calls: []).calldata,
            authorizations: [try await setup.selfAuthorization()])
        #expect(delegated["status"]?.stringValue == "0x1")

        #expect(try await atomic(allowing) == [setup.chain: .supported, Self.nodeless: .unsupported])
        #expect(try await atomic(empty) == [setup.chain: .unsupported, Self.nodeless: .unsupported])
        #expect(try await atomic(unpoliced) == [setup.chain: .unsupported, Self.nodeless: .unsupported])
        // Delegated to the executor, which this policy does not allow.
        #expect(try await atomic(elsewhere) == [setup.chain: .unsupported, Self.nodeless: .unsupported])
        // Without a chain list: every chain with a node.
        #expect(try await allowing.capabilities(of: account) == [setup.chain: AccountCapabilities(atomic: .supported)])
        #expect(
            AccountCapabilities(atomic: .supported).json.serialized == #"{"atomic":{"status":"supported"}}"#)
    }

    @Test("an account no backend signs for and a chain that is not eip155 are typed errors")
    func typedErrors() async throws {
        let dispatcher = RpcDispatcher()
        let key = SoftwareKeySigner.generate()
        try dispatcher.register(key)
        let stranger = PrivateKey.generate().address
        await #expect(throws: CapabilitiesError.unknownAccount(stranger)) {
            try await dispatcher.capabilities(of: stranger, chains: [Self.nodeless])
        }
        let cosmos = try ChainID("cosmos:cosmoshub-4")
        await #expect(throws: CapabilitiesError.unsupportedChain(cosmos)) {
            try await dispatcher.capabilities(of: key.address, chains: [Self.nodeless, cosmos])
        }
        // Registered, no node for the chain: answered, not thrown.
        #expect(
            try await dispatcher.capabilities(of: key.address, chains: [Self.nodeless])
                == [Self.nodeless: AccountCapabilities(atomic: .unsupported)])
    }
}
