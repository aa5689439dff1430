import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import Testing

/// Sign-In with Ethereum for smart accounts: a Safe signs in through ERC-1271, a counterfactual Safe through
/// ERC-6492, an EOA still without any node call; web3.py confirms the Safe's verdict.
@Suite("Smart accounts: Sign-In with Ethereum for a Safe")
struct SafeSignInTests {
    static let issuedAt = try? RFC3339DateTime("2026-12-01T10:00:00Z")

    func message(for account: Address, chainId: UInt256 = 8453) throws -> SignInMessage {
        try SignInMessage(
            domain: "shop.example", address: account, statement: "Sign in to Example Shop", uri: "https://shop.example",
            chainId: chainId, nonce: "n0nce4safe", issuedAt: try #require(Self.issuedAt))
    }

    /// The Safe backend's answer to `personal_sign` of the message, through a dispatcher on the chain.
    func safeSignature(_ fx: SafeChain, _ message: SignInMessage, safe: SafeDeployment.Safe, threshold: Int)
        async throws
        -> [UInt8]
    {
        let dispatcher = fx.dispatcher()
        let owners: [any PrehashSigner] = [fx.beta, fx.gamma, fx.delta]
        try dispatcher.register(try fx.signer(safe, owners: Array(owners.prefix(threshold)), threshold: threshold))
        let action = WalletRpcAction.personalSign(message: message.text, account: safe.address, chain: fx.chain)
        return try SafeChain.bytes(try await dispatcher.sign(actions: [action]).outcomes[0])
    }

    @Test("a deployed Safe signs in through ERC-1271; the same bytes fail without a node and for another domain")
    func deployedSafe() async throws {
        let fx = try await SafeChain.shared()
        let message = try message(for: fx.oneOfOne.address)
        let signature = try await safeSignature(fx, message, safe: fx.oneOfOne, threshold: 1)
        let kind = try await message.verify(signature: signature, node: fx.client, expectedDomain: "shop.example")
        #expect(kind == .erc1271)
        await #expect(throws: SignInVerificationError.self) {
            try await message.verify(signature: signature, node: fx.client, expectedDomain: "evil.example")
        }
        #expect(throws: SignInVerificationError.self) {
            try message.verify(signature: try RecoverableSignature(rsv: signature), expectedDomain: "shop.example")
        }
        let answers = try await SafeDeployment.crossCheck(
            on: fx.evm, [.init(account: fx.oneOfOne.address, hash: message.personalSignDigest, signature: signature)])
        #expect(answers == ["0x1626ba7e"])
    }

    @Test("a counterfactual 2-of-3 Safe signs in through ERC-6492, and stays undeployed")
    func counterfactualSafe() async throws {
        let fx = try await SafeChain.shared()
        let safe = fx.counterfactualTwoOfThree
        let message = try message(for: safe.address)
        let signature = try await safeSignature(fx, message, safe: safe, threshold: 2)
        let kind = try await message.verify(signature: signature, node: fx.client, expectedDomain: "shop.example")
        #expect(kind == .erc6492)
        #expect(try await !fx.hasCode(safe.address))
    }

    @Test("a message for another chain than the node's is refused before the account is asked")
    func wrongChain() async throws {
        let fx = try await SafeChain.shared()
        let message = try message(for: fx.oneOfOne.address, chainId: 1)
        let signature = try await safeSignature(
            fx, try self.message(for: fx.oneOfOne.address), safe: fx.oneOfOne, threshold: 1)
        await #expect {
            try await message.verify(signature: signature, node: fx.client, expectedDomain: "shop.example")
        } throws: { error in
            guard case .accountSignature(let reason)? = error as? SignInVerificationError else { return false }
            return reason.contains("chain 8453")
        }
    }

    @Test("an EOA signs in with a node given and no node call")
    func eoaNoNodeCall() async throws {
        let fx = try await SafeChain.shared()
        let message = try message(for: fx.delta.address)
        let signature = try await fx.delta.sign(prehash: message.personalSignDigest)
        let counting = CountingNode(fx.client)
        let kind = try await message.verify(signature: signature.rsv, node: counting, expectedDomain: "shop.example")
        #expect(kind == .eoa)
        #expect(counting.roundTrips == 0)
    }
}
