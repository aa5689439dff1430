import EthereumPrimitives
import EthereumRPC
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// Safe v1.4.1 smart accounts on a local EVM: `SafeAccountSigner` answers, the dispatcher and
/// `SignedActions.verifying(actions:results:node:)` verify through the node (ERC-1271, ERC-6492), and every
/// verdict is cross-checked by web3.py calling the Safe directly.
@Suite("Smart accounts: Safe v1.4.1 on a local EVM")
struct SafeAccountTests {
    static let magic = "0x1626ba7e"

    /// The bytes of a result that must be a contract account's signature.
    func contractBytes(_ result: ActionResult) throws -> [UInt8] {
        guard case .contractSignature(let bytes) = result else {
            Issue.record("expected a contract account's signature, got \(result)")
            throw CancellationError()
        }
        return bytes
    }

    @Test("a 1-of-1 Safe answers personal_sign, the dispatcher verifies it (ERC-1271), web3.py agrees")
    func personalSignOneOfOne() async throws {
        let fx = try await SafeChain.shared()
        let dispatcher = fx.dispatcher()
        try dispatcher.register(try fx.signer(fx.oneOfOne, owners: [fx.beta], threshold: 1))
        let message = "Pay 5 USDC to Example Shop"
        let action = WalletRpcAction.personalSign(message: message, account: fx.oneOfOne.address, chain: fx.chain)
        let signed = try await dispatcher.sign(actions: [action])
        let bytes = try contractBytes(signed.outcomes[0])
        #expect(bytes.count == 65)
        let digest = PersonalMessage.digest(Array(message.utf8))
        let claim = AccountSignatureClaim(account: fx.oneOfOne.address, digest: digest, signature: bytes)
        #expect(try await AccountSignatureVerifier.verify([claim], node: fx.client) == [.valid(.erc1271)])
        // Without a node the same bytes are not the Safe's EOA signature.
        #expect(!AccountSignatureVerifier.verifyWithoutNode(claim).isValid)
        let answers = try await SafeDeployment.crossCheck(
            on: fx.evm, [.init(account: fx.oneOfOne.address, hash: digest, signature: bytes)])
        #expect(answers == [Self.magic])
    }

    @Test("a 2-of-3 Safe answers typed data with two owners' signatures sorted by owner; valid, and not for other data")
    func typedDataTwoOfThree() async throws {
        let fx = try await SafeChain.shared()
        let safe = fx.twoOfThree.address
        let dispatcher = fx.dispatcher()
        // Owners given out of order: the backend sorts them as the Safe requires.
        try dispatcher.register(try fx.signer(fx.twoOfThree, owners: [fx.delta, fx.gamma, fx.beta], threshold: 2))
        let action = Actions.typedData(safe, chain: fx.chain, chainIdJSON: "8453")
        let signed = try await dispatcher.sign(actions: [action])
        let bytes = try contractBytes(signed.outcomes[0])
        #expect(bytes.count == 130)
        let digest = try MailExample.digest(chainIdJSON: "8453")
        let other = try MailExample.digest(chainIdJSON: "8453", contents: "Hello, Eve!")
        let verdicts = try await AccountSignatureVerifier.verify(
            [
                AccountSignatureClaim(account: safe, digest: digest, signature: bytes),
                AccountSignatureClaim(account: safe, digest: other, signature: bytes),
            ], node: fx.client)
        #expect(verdicts[0] == .valid(.erc1271))
        #expect(!verdicts[1].isValid)
        // The same result presented for other typed data is refused by SignedActions.verifying.
        let otherAction = Actions.typedData(safe, chain: fx.chain, chainIdJSON: "8453", contents: "Hello, Eve!")
        await #expect {
            _ = try await SignedActions.verifying(actions: [otherAction], results: signed.results, node: fx.client)
        } throws: { error in
            guard let error = error as? DispatchError, case .verificationFailed(let reason) = error.kind else {
                return false
            }
            return error.index == 0 && reason.contains("reverted")
        }
        let answers = try await SafeDeployment.crossCheck(
            on: fx.evm,
            [
                .init(account: safe, hash: digest, signature: bytes),
                .init(account: safe, hash: other, signature: bytes),
            ])
        #expect(answers[0] == Self.magic)
        #expect(answers[1].hasPrefix("revert"))
    }

    @Test("a Safe signer below the Safe's threshold: its answer is refused, naming the action; web3.py agrees")
    func thresholdNotMet() async throws {
        let fx = try await SafeChain.shared()
        let safe = fx.twoOfThree.address
        let dispatcher = fx.dispatcher()
        try dispatcher.register(try fx.signer(fx.twoOfThree, owners: [fx.beta], threshold: 1))
        let message = "one owner is not enough"
        let actions = [
            Actions.personal("first", fx.oneOfOne.address, chain: fx.chain),
            WalletRpcAction.personalSign(message: message, account: safe, chain: fx.chain),
        ]
        try dispatcher.register(try fx.signer(fx.oneOfOne, owners: [fx.beta], threshold: 1))
        await #expect {
            _ = try await dispatcher.sign(actions: actions)
        } throws: { error in
            guard let error = error as? DispatchError, case .verificationFailed = error.kind else { return false }
            return error.index == 1
        }
        let digest = PersonalMessage.digest(Array(message.utf8))
        let oneSignature = try await fx.beta.sign(prehash: SafeMessage(hash: digest).digest(safe: safe, chainId: 8453))
        let claim = AccountSignatureClaim(account: safe, digest: digest, signature: oneSignature.rsv)
        #expect(!(try await AccountSignatureVerifier.verify([claim], node: fx.client))[0].isValid)
        let answers = try await SafeDeployment.crossCheck(
            on: fx.evm, [.init(account: safe, hash: digest, signature: oneSignature.rsv)])
        #expect(answers[0].hasPrefix("revert"))
    }

    @Test("an owner's own EOA signature presented for the Safe is invalid (with and without a node); web3.py agrees")
    func ownerEOASignatureForTheSafe() async throws {
        let fx = try await SafeChain.shared()
        let safe = fx.oneOfOne.address
        let message = "owner signs for herself"
        let digest = PersonalMessage.digest(Array(message.utf8))
        let raw = try await fx.beta.sign(prehash: digest)
        let action = WalletRpcAction.personalSign(message: message, account: safe, chain: fx.chain)
        await #expect {
            _ = try await SignedActions.verifying(actions: [action], results: [raw.hex], node: fx.client)
        } throws: { error in
            guard let error = error as? DispatchError, case .verificationFailed = error.kind else { return false }
            return error.index == 0
        }
        #expect(throws: DispatchError.self) { _ = try SignedActions.verifying(actions: [action], results: [raw.hex]) }
        let answers = try await SafeDeployment.crossCheck(
            on: fx.evm, [.init(account: safe, hash: digest, signature: raw.rsv)])
        #expect(answers[0].hasPrefix("revert"))
    }

    @Test("a counterfactual Safe signs with ERC-6492: valid without deploying it; web3.py deploys it and agrees")
    func counterfactualERC6492() async throws {
        let fx = try await SafeChain.shared()
        let safe = fx.counterfactual
        #expect(try await !fx.hasCode(safe.address))
        let dispatcher = fx.dispatcher()
        try dispatcher.register(try fx.signer(safe, owners: [fx.beta], threshold: 1))
        let message = "counterfactual"
        let action = WalletRpcAction.personalSign(message: message, account: safe.address, chain: fx.chain)
        let signed = try await dispatcher.sign(actions: [action])
        let bytes = try contractBytes(signed.outcomes[0])
        #expect(ERC6492Wrapper.isWrapped(bytes))
        let wrapper = try ERC6492Wrapper(parsing: bytes)
        #expect(wrapper.factory == safe.factory && wrapper.factoryCalldata == safe.factoryCalldata)
        let digest = PersonalMessage.digest(Array(message.utf8))
        // A wrapper around another key's signature: the deployed Safe refuses it.
        let stranger = try await fx.gamma.sign(
            prehash: SafeMessage(hash: digest).digest(safe: safe.address, chainId: 8453))
        let forged = ERC6492Wrapper(
            factory: safe.factory, factoryCalldata: safe.factoryCalldata, signature: stranger.rsv
        ).encoded
        // A factory call that reverts deploys nothing: invalid, not an error.
        let undeployable = ERC6492Wrapper(
            factory: safe.factory, factoryCalldata: [0xde, 0xad, 0xbe, 0xef], signature: wrapper.signature
        ).encoded
        let verdicts = try await AccountSignatureVerifier.verify(
            [
                AccountSignatureClaim(account: safe.address, digest: digest, signature: bytes),
                AccountSignatureClaim(account: safe.address, digest: digest, signature: forged),
                AccountSignatureClaim(account: safe.address, digest: digest, signature: undeployable),
            ], node: fx.client)
        #expect(verdicts[0] == .valid(.erc6492))
        #expect(!verdicts[1].isValid)
        #expect(!verdicts[2].isValid)
        // Verification is read-only: the Safe is still not deployed.
        #expect(try await !fx.hasCode(safe.address))
        // web3.py deploys it for real, then asks it about the inner signatures.
        let answers = try await SafeDeployment.crossCheck(
            on: fx.evm,
            [
                .init(
                    account: safe.address, hash: digest, signature: wrapper.signature,
                    deployBy: (fx.deployerHex, safe)),
                .init(account: safe.address, hash: digest, signature: stranger.rsv),
            ])
        #expect(answers[0] == Self.magic)
        #expect(answers[1].hasPrefix("revert"))
        // Deployed now, the wrapped signature still verifies (the validator skips the factory).
        let after = try await AccountSignatureVerifier.verify(
            [AccountSignatureClaim(account: safe.address, digest: digest, signature: bytes)], node: fx.client)
        #expect(after == [.valid(.erc6492)])
    }

    @Test("an EOA signature is valid without a node and with one, and costs no node call")
    func eoaWithAndWithoutNode() async throws {
        let fx = try await SafeChain.shared()
        let digest = PersonalMessage.digest(Array("plain EOA".utf8))
        let signature = try await fx.gamma.sign(prehash: digest)
        let claim = AccountSignatureClaim(account: fx.gamma.address, digest: digest, signature: signature.rsv)
        #expect(AccountSignatureVerifier.verifyWithoutNode(claim) == .valid(.eoa))
        let counting = CountingNode(fx.client)
        #expect(try await AccountSignatureVerifier.verify([claim], node: counting) == [.valid(.eoa)])
        let action = WalletRpcAction.personalSign(message: "plain EOA", account: fx.gamma.address, chain: fx.chain)
        let bundle = try await SignedActions.verifying(actions: [action], results: [signature.hex], node: counting)
        #expect(bundle.outcomes == [.signature(signature)])
        #expect(counting.roundTrips == 0)
        // Another account's EOA signature: invalid without a node; with one, asked of the account (no code: invalid).
        let wrong = AccountSignatureClaim(account: fx.delta.address, digest: digest, signature: signature.rsv)
        #expect(!AccountSignatureVerifier.verifyWithoutNode(wrong).isValid)
        #expect(!(try await AccountSignatureVerifier.verify([wrong], node: counting))[0].isValid)
    }

    @Test("Pay-shaped actions answered by a 2-of-3 Safe are bundled after one round trip; web3.py agrees with each")
    func payShapedBatch() async throws {
        let fx = try await SafeChain.shared()
        let safe = fx.twoOfThree.address
        let counting = CountingNode(fx.client)
        let dispatcher = RpcDispatcher(nodes: [fx.chain: counting])
        try dispatcher.register(try fx.signer(fx.twoOfThree, owners: [fx.beta, fx.gamma], threshold: 2))
        let typed: [JSONValue] = [
            StandardPayloads.permit(
                token: StandardPayloads.usdcBase, chainId: 8453, owner: safe, spender: StandardPayloads.spender,
                value: UInt256(5_000_000), deadline: UInt256(1_900_000_000)),
            StandardPayloads.authorization(
                "TransferWithAuthorization", token: StandardPayloads.usdcBase, chainId: 8453, from: safe,
                to: StandardPayloads.merchant, value: UInt256(5_000_000), validBefore: 1_900_000_000),
            StandardPayloads.permitTransferFrom(
                chainId: 8453, token: StandardPayloads.usdcBase, amount: UInt256(5_000_000),
                spender: StandardPayloads.spender, deadline: 1_900_000_000),
        ]
        let actions =
            typed.map { WalletRpcAction.signTypedData($0, account: safe, chain: fx.chain) }
            + [WalletRpcAction.personalSign(message: "order 42", account: safe, chain: fx.chain)]
        let signed = try await dispatcher.sign(actions: actions)
        #expect(signed.count == 4)
        #expect(counting.roundTrips == 1)
        #expect(counting.batchedRequests == 4)
        // The same results, signed "elsewhere", bundle through SignedActions.verifying in one round trip too.
        let again = CountingNode(fx.client)
        let rebundled = try await SignedActions.verifying(actions: actions, results: signed.results, node: again)
        #expect(rebundled.answers(actions))
        #expect(again.roundTrips == 1)
        var digests = try typed.map { try TypedData(json: $0).digest() }
        digests.append(PersonalMessage.digest(Array("order 42".utf8)))
        let checks = try zip(digests, signed.outcomes).map { digest, outcome in
            SafeDeployment.Check(account: safe, hash: digest, signature: try contractBytes(outcome))
        }
        #expect(try await SafeDeployment.crossCheck(on: fx.evm, checks) == Array(repeating: Self.magic, count: 4))
    }

    @Test("an unreachable node is an error, not a verdict: the dispatcher reports it as verificationUnavailable")
    func unreachableNode() async throws {
        let fx = try await SafeChain.shared()
        let refusing = try RefusingPort()
        let dead = JSONRPCClient(url: try #require(URL(string: "http://127.0.0.1:\(refusing.port)")), maxRetries: 0)
        let dispatcher = RpcDispatcher(nodes: [fx.chain: dead])
        try dispatcher.register(try fx.signer(fx.oneOfOne, owners: [fx.beta], threshold: 1))
        let action = WalletRpcAction.personalSign(message: "no node", account: fx.oneOfOne.address, chain: fx.chain)
        await #expect {
            _ = try await dispatcher.sign(actions: [action])
        } throws: { error in
            guard let error = error as? DispatchError, case .verificationUnavailable = error.kind else { return false }
            return error.index == 0
        }
    }

    @Test("two chains: one round trip each; a Safe signature made for another chain than the node's is refused")
    func oneRoundTripPerChain() async throws {
        let fx = try await SafeChain.shared()
        let safe = fx.oneOfOne.address
        let base = CountingNode(fx.client)
        // "eip155:10" is served by the same node (chain 8453): the Safe computes its SafeMessage for 8453.
        let optimism = ChainID(eip155: 10)
        let other = CountingNode(fx.client)
        let dispatcher = RpcDispatcher(nodes: [fx.chain: base, optimism: other])
        try dispatcher.register(try fx.signer(fx.oneOfOne, owners: [fx.beta], threshold: 1))
        let actions = [
            WalletRpcAction.personalSign(message: "on base", account: safe, chain: fx.chain),
            WalletRpcAction.personalSign(message: "on optimism", account: safe, chain: optimism),
            WalletRpcAction.personalSign(message: "on base again", account: safe, chain: fx.chain),
        ]
        await #expect {
            _ = try await dispatcher.sign(actions: actions)
        } throws: { error in
            guard let error = error as? DispatchError, case .verificationFailed = error.kind else { return false }
            return error.index == 1
        }
        #expect(base.roundTrips == 1 && base.batchedRequests == 2)
        #expect(other.roundTrips == 1 && other.batchedRequests == 1)
    }

    @Test("a contract account's result on a chain without a node is refused as noNode, naming the action")
    func noNodeForTheChain() async throws {
        let fx = try await SafeChain.shared()
        let dispatcher = RpcDispatcher()
        try dispatcher.register(try fx.signer(fx.oneOfOne, owners: [fx.beta], threshold: 1))
        let action = WalletRpcAction.personalSign(message: "no node", account: fx.oneOfOne.address, chain: fx.chain)
        await #expect {
            _ = try await dispatcher.sign(actions: [action])
        } throws: { error in
            guard let error = error as? DispatchError, case .noNode = error.kind else { return false }
            return error.index == 0
        }
    }

    @Test("the Safe backend's preview names the Safe and its signing owners")
    func previewNamesSafeAndOwners() async throws {
        let fx = try await SafeChain.shared()
        let signer = try fx.signer(fx.twoOfThree, owners: [fx.gamma, fx.beta], threshold: 2)
        #expect(
            signer.owners.map(\.address)
                == [fx.beta.address, fx.gamma.address].sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) })
        let dispatcher = fx.dispatcher()
        try dispatcher.register(signer)
        let action = WalletRpcAction.personalSign(message: "hi", account: fx.twoOfThree.address, chain: fx.chain)
        let prepared = try await dispatcher.prepare(actions: [action])
        let request = try #require(prepared.requests.first)
        let text = signer.preview(request).description
        #expect(text.contains(fx.twoOfThree.address.checksummed))
        #expect(text.contains(fx.beta.address.checksummed) && text.contains(fx.gamma.address.checksummed))
    }
}
