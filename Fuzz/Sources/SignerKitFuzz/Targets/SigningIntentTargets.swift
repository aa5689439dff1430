import EIP712
import EthereumPrimitives
import SignerKit

/// Texts that decide what gets signed or refused: EIP-4361 sign-in messages, ERC-7730 descriptors, policy
/// files and token registries.
enum SigningIntentTargets {
    static let signInMessage = FuzzTarget(
        name: "sign-in-message",
        summary: "EIP-4361 (SIWE) messages: an accepted message is exactly its input and re-parses equal"
    ) { bytes in
        do throws(SignInMessageError) {
            let message = try SignInMessage(bytes: bytes)
            FuzzCheck.expect(message.bytes == bytes, "an accepted message prints as other bytes")
            FuzzCheck.expect((try? SignInMessage(bytes: message.bytes)) == message, "a message does not re-parse")
        } catch {
            FuzzCheck.boundedDescription(error)
        }
    }

    /// Typed data and calldata the test descriptors (Tests/SignerKitTests/Fixtures/erc7730-*) describe: a fuzzed
    /// descriptor that still matches them is rendered.
    static let chainId = UInt256(8453)
    static let router = FuzzCheck.constant("router") { try Address("0x00000000000000000000000000000000000f0075") }
    static let account = FuzzCheck.constant("account") { try Address("0x90F8bf6A479f320ead074411a4B0e7944Ea8c9C1") }
    static let deposit: TypedData = FuzzCheck.constant("Deposit typed data") {
        try TypedData(
            jsonText: """
                {"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"},\
                {"name":"verifyingContract","type":"address"}],"Deposit":[{"name":"token","type":"address"},\
                {"name":"amount","type":"uint256"},{"name":"beneficiary","type":"address"},\
                {"name":"lockSeconds","type":"uint256"},{"name":"kind","type":"uint8"},{"name":"deadline","type":"uint256"},\
                {"name":"startBlock","type":"uint256"}]},"primaryType":"Deposit","domain":{"name":"Test Vault",\
                "chainId":8453,"verifyingContract":"0x00000000000000000000000000000000000fa017"},"message":{\
                "token":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","amount":"2500000",\
                "beneficiary":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","lockSeconds":93784,"kind":1,\
                "deadline":1767229200,"startBlock":123456}}
                """)
    }
    static let payMerchant: [UInt8] = {
        func word(_ value: UInt256) -> [UInt8] { value.word.bytes }
        let token = FuzzCheck.constant("USDC on Base") {
            UInt256(bigEndian: try Address("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913").bytes)
        }
        return ERC20Calldata.selector("payMerchant(address,uint256,address,uint64,bool)") + word(token)
            + word(UInt256(1_000_000)) + word(UInt256(0xbeef)) + word(UInt256(600)) + word(UInt256(1))
    }()

    static let clearSigningDescriptor = FuzzTarget(
        name: "clear-signing-descriptor",
        summary: "ERC-7730 descriptors (eip712 and contract contexts): typed path errors; a matching descriptor "
            + "renders fixed typed data and calldata deterministically, within its fields"
    ) { bytes in
        guard let text = FuzzCheck.text(bytes) else { return }
        let descriptor: ClearSigningDescriptor
        do throws(ClearSigningError) {
            descriptor = try ClearSigningDescriptor(jsonText: text)
        } catch {
            FuzzCheck.boundedDescription(error)
            return
        }
        let registry = ClearSigningRegistry([descriptor])
        let tokens = TokenRegistry()
        let mostFields = descriptor.formats.map(\.fields.count).max() ?? 0
        let typed = registry.render(typedData: deposit, chainId: chainId, tokens: tokens)
        FuzzCheck.expect((typed?.fields.count ?? 0) <= mostFields, "more rendered fields than the descriptor has")
        FuzzCheck.expect(
            registry.render(typedData: deposit, chainId: chainId, tokens: tokens) == typed, "typed data rendering")
        let call = registry.render(
            calldata: payMerchant, to: router, value: UInt256(10_000), from: account, chainId: chainId, tokens: tokens)
        FuzzCheck.expect((call?.fields.count ?? 0) <= mostFields, "more rendered fields than the descriptor has")
    }

    static let policyFile = FuzzTarget(
        name: "policy-file",
        summary: "policy files and token registry files: typed errors naming the path; accepted files load twice "
            + "to the same policies"
    ) { bytes in
        guard let text = FuzzCheck.text(bytes) else { return }
        do throws(PolicyFileError) {
            let policies = try PolicyFile.policies(jsonText: text)
            let again = try PolicyFile.policies(jsonText: text)
            FuzzCheck.expect(policies.map(\.name) == again.map(\.name), "loading is not deterministic")
            _ = try PolicyFile.allowedDelegates(jsonText: text)
        } catch {
            FuzzCheck.boundedDescription(error)
        }
        do throws(TokenRegistryError) {
            let registry = try TokenRegistry().adding(jsonText: text)
            _ = registry
        } catch {
            FuzzCheck.boundedDescription(error)
        }
    }
}
