import EthereumPrimitives
import EthereumRPC
import EthereumTransactions
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// EIP-7702 through SignerKit: policy-gated authorization signing, type-4 transactions through the dispatcher
/// (verification, preview, policies), and on a Prague local EVM.
@Suite("EIP-7702 in SignerKit")
struct EIP7702Tests {
    /// A delegate contract address nobody controls in these tests.
    static let delegate: Address = {
        do { return try Address("0x00000000000000000000000000000000000b0b0b") } catch { fatalError("\(error)") }
    }()

    /// Signs `authorization` with `key`, allowing exactly `delegate`.
    static func authorize(
        _ key: some PrehashSigner, chainId: UInt256, nonce: UInt64 = 0, delegate: Address = delegate
    ) async throws -> SignedAuthorization {
        try await key.signAuthorization(
            Authorization(chainId: chainId, address: delegate, nonce: nonce), policy: AllowedDelegates([delegate]))
    }

    /// An `eth_signTransaction` / `eth_sendTransaction` object of type 0x4 from `from` carrying `tuples`.
    static func setCodeJSON(from: Address, to: Address, tuples: [SignedAuthorization], complete: Bool) -> String {
        let list = JSONValue.array(tuples.map(\.json)).serialized
        let fees =
            complete
            ? #","type":"0x4","nonce":"0x3","gas":"0x30d40","maxFeePerGas":"0x77359400","maxPriorityFeePerGas":"0x3b9aca00""#
            : ""
        return
            #"{"from":"\#(from.lowercased)","to":"\#(to.lowercased)","value":"0x0","authorizationList":\#(list)\#(fees)}"#
    }

    @Test("signAuthorization: signs only listed delegates, chain 0 only when allowed, and checks the key's signature")
    func policyGatedSigning() async throws {
        let key = try TestKeys.signer(TestKeys.alphaHex)
        let authorization = Authorization(chainId: 8453, address: Self.delegate, nonce: 5)
        let signed = try await key.signAuthorization(authorization, policy: AllowedDelegates([Self.delegate]))
        #expect(signed.authorization == authorization)
        #expect(try signed.recoverAuthority() == key.address)
        let expected = authorization.sign(with: try TestKeys.key(TestKeys.alphaHex))
        #expect(signed == expected)

        let other = try Address("0x000000000000000000000000000000000000dEaD")
        await #expect(
            throws: SignerError.policyViolation(
                policy: "AllowedDelegates",
                reason: "delegate \(Self.delegate.checksummed) is not an allowed delegate")
        ) {
            try await key.signAuthorization(authorization, policy: AllowedDelegates([other]))
        }
        await #expect(throws: SignerError.self) {
            try await key.signAuthorization(authorization, policy: AllowedDelegates([]))
        }
        let anyChain = Authorization(chainId: 0, address: Self.delegate, nonce: 5)
        do {
            _ = try await key.signAuthorization(anyChain, policy: AllowedDelegates([Self.delegate]))
            Issue.record("chain id 0 was signed without allowingAnyChain")
        } catch {
            guard case .policyViolation(_, let reason) = error else { throw error }
            #expect(reason.contains("valid on every chain"))
        }
        let universal = try await key.signAuthorization(
            anyChain, policy: AllowedDelegates([Self.delegate], allowingAnyChain: true))
        #expect(try universal.recoverAuthority() == key.address)
        await #expect(throws: SignerError.self) {
            try await key.signAuthorization(
                Authorization(chainId: 1, address: Self.delegate, nonce: .max),
                policy: AllowedDelegates([Self.delegate]))
        }
    }

    @Test("signAuthorization refuses a key whose signature is by another key or high-s")
    func untrustedKeys() async throws {
        let authorization = Authorization(chainId: 1, address: Self.delegate, nonce: 0)
        let policy = AllowedDelegates([Self.delegate])
        let liar = VerificationTests.WrongKeySigner(
            address: try TestKeys.key(TestKeys.alphaHex).address, key: try TestKeys.key(TestKeys.betaHex))
        do {
            _ = try await liar.signAuthorization(authorization, policy: policy)
            Issue.record("a signature by another key was returned")
        } catch {
            guard case .verificationFailed(let reason) = error else { throw error }
            #expect(reason.contains("not by the account"))
        }
        let highS = VerificationTests.HighSSigner(key: try TestKeys.key(TestKeys.alphaHex))
        do {
            _ = try await highS.signAuthorization(authorization, policy: policy)
            Issue.record("a high-s signature was returned")
        } catch {
            guard case .verificationFailed(let reason) = error else { throw error }
            #expect(reason.contains("high s"))
        }
    }

    @Test("policy file: allowedDelegates as a list or an object; mistakes name the member")
    func policyFile() throws {
        let list = try #require(
            try PolicyFile.allowedDelegates(jsonText: #"{"allowedDelegates":["\#(Self.delegate.lowercased)"]}"#))
        #expect(list.delegates == [Self.delegate])
        #expect(!list.allowsAnyChain)
        let object = try #require(
            try PolicyFile.allowedDelegates(
                jsonText: #"{"allowedDelegates":{"delegates":["\#(Self.delegate.checksummed)"],"allowAnyChain":true}}"#)
        )
        #expect(object.allowsAnyChain)
        #expect(try PolicyFile.allowedDelegates(jsonText: #"{"noUnlimitedApprovals":true}"#) == nil)
        #expect(try PolicyFile.policies(jsonText: #"{"allowedDelegates":[]}"#).contains { $0 is AllowedDelegates })
        for (text, path) in [
            (#"{"allowedDelegates":["0x12"]}"#, "allowedDelegates[0]"),
            (#"{"allowedDelegates":{"delegates":[1]}}"#, "allowedDelegates.delegates[0]"),
            (#"{"allowedDelegates":{"delegates":[],"allowAnyChain":"yes"}}"#, "allowedDelegates.allowAnyChain"),
            (#"{"allowedDelegates":{"delegate":[]}}"#, "allowedDelegates.delegate"),
            (#"{"allowedDelegates":{}}"#, "allowedDelegates.delegates"),
            (#"{"allowedDelegates":true}"#, "allowedDelegates"),
        ] {
            #expect(throws: PolicyFileError.self) { try PolicyFile.policies(jsonText: text) }
            do {
                _ = try PolicyFile.policies(jsonText: text)
            } catch {
                #expect(error.path == path, "\(text): \(error)")
            }
        }
    }

    @Test(
        "eth_signTransaction type 0x4: signed, verified, previewed with its delegations; AllowedDelegates judges tuples"
    )
    func signTransactionThroughDispatcher() async throws {
        let sender = try TestKeys.signer(TestKeys.alphaHex)
        let authority = try TestKeys.signer(TestKeys.betaHex)
        let tuple = try await Self.authorize(authority, chainId: 8453, nonce: 9)
        let action = Actions.signTransaction(
            Self.setCodeJSON(from: sender.address, to: authority.address, tuples: [tuple], complete: true))

        let dispatcher = RpcDispatcher()
        try dispatcher.register(sender)
        let previews = try dispatcher.preview(actions: [action])
        let delegation = try #require(previews.first?.delegations.first)
        #expect(delegation.authority == authority.address)
        #expect(delegation.delegate == Self.delegate)
        #expect(delegation.chainId == 8453)
        #expect(delegation.nonce == 9)
        let line = try #require(previews.first?.line)
        #expect(
            line.contains(
                "\(authority.address.checksummed) delegates to \(Self.delegate.checksummed) (chain 8453, nonce 9)"))
        #expect(previews.first?.json["delegations"]?.arrayValue?.count == 1)

        let signed = try await dispatcher.sign(actions: [action])
        let raw = try SignedTransaction.decode(hex: try #require(signed.results.first))
        #expect(raw.transaction.type == .eip7702)
        #expect(raw.transaction.authorizationList == [tuple])
        #expect(try raw.recoverSender() == sender.address)
        #expect(try raw.recoverAuthorities().map { try $0.get() } == [authority.address])

        // A dispatcher policy listing other delegates refuses the transaction, naming the tuple.
        let strict = RpcDispatcher { AllowedDelegates([Actions.recipient]) }
        try strict.register(sender)
        do {
            _ = try await strict.sign(actions: [action])
            Issue.record("a transaction delegating to an unlisted delegate was signed")
        } catch {
            guard case .policyViolation(let policy, let reason) = error.kind else { throw error }
            #expect(policy == "AllowedDelegates")
            #expect(reason.hasPrefix("authorizationList[0]: delegate"))
        }
        let allowing = RpcDispatcher { AllowedDelegates([Self.delegate]) }
        try allowing.register(sender)
        #expect(try await allowing.sign(actions: [action]).results == signed.results)
    }

    @Test("the preview marks tuples a node will skip: another chain, an unrecoverable signature")
    func previewMarksSkippedTuples() async throws {
        let sender = try TestKeys.signer(TestKeys.alphaHex)
        let authority = try TestKeys.signer(TestKeys.betaHex)
        let good = try await Self.authorize(authority, chainId: 8453)
        let universal = try await authority.signAuthorization(
            Authorization(chainId: 0, address: Self.delegate, nonce: 1),
            policy: AllowedDelegates([Self.delegate], allowingAnyChain: true))
        let elsewhere = try await Self.authorize(authority, chainId: 10)
        var twin = good
        twin.s = Secp256k1Order.order - good.s
        twin.yParity ^= 1
        let action = Actions.signTransaction(
            Self.setCodeJSON(
                from: sender.address, to: authority.address, tuples: [good, universal, elsewhere, twin], complete: true)
        )
        let dispatcher = RpcDispatcher()
        try dispatcher.register(sender)
        let preview = try #require(try dispatcher.preview(actions: [action]).first)
        #expect(
            preview.delegations.map(\.skipReason) == [
                nil, nil, "chain id 10 is not the transaction's chain",
                "authorization signature s is above n/2 (EIP-7702 requires s <= n/2)",
            ])
        #expect(preview.delegations.map(\.authority) == [authority.address, authority.address, authority.address, nil])
        #expect(preview.line.contains("(any chain, nonce 1)"))
        #expect(preview.line.contains("an unrecoverable authority delegates to"))
        #expect(preview.line.contains("[skipped: chain id 10 is not the transaction's chain]"))
        let json = preview.json["delegations"]?.arrayValue ?? []
        #expect(json.map { $0["skipped"]?.stringValue } == preview.delegations.map(\.skipReason))
    }

    @Test("eth_signTransaction type 0x4: a backend that drops or changes the authorization list is refused")
    func verifierChecksAuthorizationList() async throws {
        let sender = try TestKeys.key(TestKeys.gammaHex)
        let authority = try TestKeys.signer(TestKeys.betaHex)
        let tuple = try await Self.authorize(authority, chainId: 8453)
        let otherTuple = try await Self.authorize(authority, chainId: 8453, nonce: 1)
        let action = Actions.signTransaction(
            Self.setCodeJSON(from: sender.address, to: authority.address, tuples: [tuple], complete: true))
        func setCode(_ tuples: [SignedAuthorization]) -> EIP7702Transaction {
            EIP7702Transaction(
                chainId: 8453, nonce: 3, maxPriorityFeePerGas: 1_000_000_000, maxFeePerGas: 2_000_000_000,
                gasLimit: 200_000, destination: authority.address, authorizationList: tuples)
        }
        let asEIP1559 = EIP1559Transaction(
            chainId: 8453, nonce: 3, maxPriorityFeePerGas: 1_000_000_000, maxFeePerGas: 2_000_000_000,
            gasLimit: 200_000, to: authority.address)
        let lies: [(String, [UInt8])] = [
            ("authorizationList differs", setCode([otherTuple]).sign(with: sender).rawTransaction),
            ("is not type 0x4 (EIP-7702)", asEIP1559.sign(with: sender).rawTransaction),
            ("authorizationList differs", setCode([tuple, otherTuple]).sign(with: sender).rawTransaction),
        ]
        let verifier = try VerificationTests()
        for (reason, raw) in lies {
            let dispatcher = RpcDispatcher()
            try dispatcher.register(
                VerificationTests.ScriptedBackend(account: sender.address) { _ in .rawTransaction(raw) })
            await verifier.expectRefused([action], by: dispatcher, at: 0, reasonPart: reason)
        }
        let honest = RpcDispatcher()
        let raw = setCode([tuple]).sign(with: sender).rawTransaction
        try honest.register(VerificationTests.ScriptedBackend(account: sender.address) { _ in .rawTransaction(raw) })
        #expect(try await honest.sign(actions: [action]).results == [Hex.encode(raw)])
    }
}

/// Type-4 transactions on the local EVM (py-evm's Prague VM applies EIP-7702).
@Suite("EIP-7702 on a local EVM")
struct EIP7702LocalEVMTests {
    @Test("eth_sendTransaction type 0x4, filled by the node: mined, and the authority's code is 0xef0100 ‖ delegate")
    func sponsoredDelegation() async throws {
        let setup = try await LocalChain.start()
        defer { setup.evm.stop() }
        let chainId = try #require(setup.chain.eip155ChainID)
        let authority = SoftwareKeySigner.generate()
        let tuple = try await EIP7702Tests.authorize(authority, chainId: chainId)
        let action = WalletRpcAction(
            chainId: setup.chain, method: .sendTransaction,
            params:
                "[\(EIP7702Tests.setCodeJSON(from: setup.key.address, to: authority.address, tuples: [tuple], complete: false))]"
        )
        let signed = try await setup.dispatcher.sign(actions: [action])
        guard case .transactionHash(let hash) = try #require(signed.outcomes.first) else {
            Issue.record("expected a transaction hash, got \(signed.outcomes)")
            return
        }
        let mined = try #require(try await setup.evm.call("eth_getTransactionByHash", [.string(hash.hex)]).objectValue)
        #expect(mined["type"]?.stringValue == "0x4")
        let code = try await setup.evm.call("eth_getCode", [.string(authority.address.lowercased), .string("latest")])
        #expect(code.stringValue == "0xef0100" + EIP7702Tests.delegate.lowercased.dropFirst(2))
        // Applying the authorization incremented the authority's nonce.
        #expect(try await setup.client.transactionCount(of: authority.address, block: .latest) == 1)
    }

    @Test("a self-sponsored delegation (sender = authority, nonce + 1) is applied; a clearing one resets the code")
    func selfSponsoredAndCleared() async throws {
        let setup = try await LocalChain.start()
        defer { setup.evm.stop() }
        let chainId = try #require(setup.chain.eip155ChainID)
        let account = setup.key.address
        // The sender's nonce is incremented before the tuples are processed.
        let nonce = try #require(try await setup.client.transactionCount(of: account, block: .pending).uint64)
        let tuple = try await EIP7702Tests.authorize(setup.key, chainId: chainId, nonce: nonce + 1)
        let json = EIP7702Tests.setCodeJSON(from: account, to: account, tuples: [tuple], complete: false)
        _ = try await setup.dispatcher.sign(actions: [
            WalletRpcAction(chainId: setup.chain, method: .sendTransaction, params: "[\(json)]")
        ])
        let code = try await setup.evm.call("eth_getCode", [.string(account.lowercased), .string("latest")])
        #expect(code.stringValue == "0xef0100" + EIP7702Tests.delegate.lowercased.dropFirst(2))

        // Delegating to the zero address clears the code (EIP-7702).
        let zero = try Address("0x0000000000000000000000000000000000000000")
        let next = try #require(try await setup.client.transactionCount(of: account, block: .pending).uint64)
        let clear = try await EIP7702Tests.authorize(setup.key, chainId: chainId, nonce: next + 1, delegate: zero)
        let clearing = EIP7702Tests.setCodeJSON(from: account, to: account, tuples: [clear], complete: false)
        _ = try await setup.dispatcher.sign(actions: [
            WalletRpcAction(chainId: setup.chain, method: .sendTransaction, params: "[\(clearing)]")
        ])
        let cleared = try await setup.evm.call("eth_getCode", [.string(account.lowercased), .string("latest")])
        #expect(cleared.stringValue == "0x")
    }

    @Test("eth_signTransaction type 0x4 on the node's chain: the raw transaction the node accepts and mines")
    func signThenBroadcast() async throws {
        let setup = try await LocalChain.start()
        defer { setup.evm.stop() }
        let chainId = try #require(setup.chain.eip155ChainID)
        let authority = SoftwareKeySigner.generate()
        let tuple = try await EIP7702Tests.authorize(authority, chainId: chainId)
        let json = EIP7702Tests.setCodeJSON(
            from: setup.key.address, to: authority.address, tuples: [tuple], complete: false)
        let signed = try await setup.dispatcher.sign(actions: [
            WalletRpcAction(chainId: setup.chain, method: .signTransaction, params: "[\(json)]")
        ])
        let raw = try SignedTransaction.decode(hex: try #require(signed.results.first))
        #expect(raw.transaction.type == .eip7702)
        let hash = try await setup.client.sendRawTransaction(raw.rawTransaction)
        #expect(hash == raw.hash)
        let receipt = try #require(
            try await setup.evm.call("eth_getTransactionReceipt", [.string(hash.hex)]).objectValue)
        #expect(receipt["status"]?.stringValue == "0x1")
        let code = try await setup.evm.call("eth_getCode", [.string(authority.address.lowercased), .string("latest")])
        #expect(code.stringValue == "0xef0100" + EIP7702Tests.delegate.lowercased.dropFirst(2))
    }
}
