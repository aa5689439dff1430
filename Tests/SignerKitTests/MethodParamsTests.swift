import EIP712
import EthereumPrimitives
import EthereumTransactions
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// Params of each method and the results they produce, checked with real secp256k1 recovery and the
/// strict raw-transaction decoder.
@Suite("Params per method")
struct MethodParamsTests {
    let key: SoftwareKeySigner
    let dispatcher: RpcDispatcher

    init() throws {
        key = try TestKeys.signer(TestKeys.alphaHex)
        dispatcher = RpcDispatcher()
        try dispatcher.register(key)
    }

    // MARK: eth_signTypedData_v4

    @Test("Typed data [address, typedData] as an object and as a JSON string sign EIP-712's published digest")
    func typedDataBothForms() async throws {
        let digest = try Bytes32(hex: MailExample.digestOnChain1)
        #expect(try MailExample.digest() == digest)
        let actions = [Actions.typedData(key.address), Actions.typedDataAsString(key.address)]
        let signed = try await dispatcher.sign(actions: actions)
        try expectSignature(signed.results[0], by: key.address, over: digest)
        try expectSignature(signed.results[1], by: key.address, over: digest)
        // RFC 6979: same key, same digest, same signature.
        #expect(signed.results[0] == signed.results[1])
        #expect(signed.results[0] == key.privateKey.sign(prehash: digest).hex)
        guard case .signature(let signature) = signed.outcomes[0] else {
            Issue.record("expected a signature outcome, got \(signed.outcomes[0])")
            return
        }
        #expect(signed.results[0] == signature.hex)
        #expect(signature.vForMessages == 27 || signature.vForMessages == 28)
    }

    @Test("Typed data without domain.chainId signs on any chain")
    func typedDataWithoutChain() async throws {
        let action = Actions.typedData(key.address, chain: TestChains.base, chainIdJSON: nil)
        let signed = try await dispatcher.sign(actions: [action])
        try expectSignature(signed.results[0], by: key.address, over: try MailExample.digest(chainIdJSON: nil))
    }

    @Test("Typed data params that are not [address, typedData] are refused with the position")
    func typedDataBadParams() async throws {
        let account = jsonString(key.address.lowercased)
        let cases: [(String, String)] = [
            ("[\(account)]", "expected [address, typedData]"),
            ("[\(MailExample.json()),\(account)]", "[0] (address): expected an address string, got object"),
            (#"["0x1234",\#(MailExample.json())]"#, "[0] (address)"),
            ("[\(jsonString(Self.badChecksum(key.address))),\(MailExample.json())]", "[0] (address): "),
            ("[\(account),{\"types\":{}}]", "[1] (typedData)"),
            ("[\(account),\"{not json\"]", "[1] (typedData)"),
        ]
        for (params, expected) in cases {
            let action = WalletRpcAction(chainId: TestChains.mainnet, method: .signTypedDataV4, params: params)
            let error = await #expect(throws: DispatchError.self) { try await dispatcher.sign(actions: [action]) }
            guard case .invalidParams(let text)? = error?.kind else {
                Issue.record("\(params): expected .invalidParams, got \(String(describing: error))")
                continue
            }
            #expect(text.hasPrefix(expected), "\(text)")
            #expect(error?.index == 0)
            #expect(error?.method == "eth_signTypedData_v4")
        }
    }

    /// The address in mixed case with one letter's case flipped: a broken EIP-55 checksum.
    static func badChecksum(_ address: Address) -> String {
        var characters = Array(address.checksummed)
        guard let letter = characters.indices.dropFirst(2).first(where: { characters[$0].isLetter }) else {
            return address.checksummed
        }
        characters[letter] =
            characters[letter].isUppercase
            ? Character(characters[letter].lowercased()) : Character(characters[letter].uppercased())
        return String(characters)
    }

    // MARK: personal_sign

    @Test("personal_sign: 0x-hex is bytes, other text is UTF-8 (checked by recovery over each digest)")
    func personalSignMessages() async throws {
        let binary: [UInt8] = [0x00, 0xff, 0x10, 0x80, 0x0a]
        let messages: [(parameter: String, bytes: [UInt8])] = [
            ("0x68656c6c6f", Array("hello".utf8)),
            ("hello", Array("hello".utf8)),
            (Hex.encode(binary), binary),
            ("héllo ✓ \n 世界", Array("héllo ✓ \n 世界".utf8)),
            ("0xzz", Array("0xzz".utf8)),  // not hex: signed as its text
            ("0x", []),  // empty hex: zero bytes
        ]
        let actions = messages.map { Actions.personal($0.parameter, key.address) }
        let signed = try await dispatcher.sign(actions: actions)
        for (index, message) in messages.enumerated() {
            let digest = personalDigest(bytes: message.bytes)
            #expect(digest == PersonalMessage.digest(message.bytes))
            try expectSignature(signed.results[index], by: key.address, over: digest)
        }
        // Hex and text forms of "hello" give the same signature; the text "0xzz" does not recover over bytes.
        #expect(signed.results[0] == signed.results[1])
        let zz = try RecoverableSignature(hex: signed.results[4])
        #expect(try ECDSA.recoverAddress(prehash: personalDigest(bytes: []), signature: zz) != key.address)
    }

    @Test("personal_sign params: [message, address], message a string")
    func personalSignBadParams() async throws {
        let account = jsonString(key.address.lowercased)
        let cases: [(String, String)] = [
            ("[\"hi\"]", "expected [message, address]"),
            ("[42,\(account)]", "[0] (message): expected a string, got number"),
            ("[\"hi\",\"hi\"]", "[1] (address)"),
            ("{\"message\":\"hi\"}", "expected a JSON array"),
        ]
        for (params, expected) in cases {
            let action = WalletRpcAction(chainId: TestChains.base, method: .personalSign, params: params)
            let error = await #expect(throws: DispatchError.self) { try await dispatcher.sign(actions: [action]) }
            guard case .invalidParams(let text)? = error?.kind else {
                Issue.record("\(params): expected .invalidParams, got \(String(describing: error))")
                continue
            }
            #expect(text.hasPrefix(expected), "\(text)")
        }
    }

    // MARK: eth_signTransaction

    @Test("eth_signTransaction with [tx] and with the bare object: raw tx decodes and recovers the sender")
    func signTransactionShapes() async throws {
        let tx = Actions.legacyTransactionJSON(from: key.address)
        let actions = [
            Actions.signTransaction(tx),
            Actions.signTransaction(tx, bare: true),
        ]
        let signed = try await dispatcher.sign(actions: actions)
        #expect(signed.results[0] == signed.results[1])
        guard case .rawTransaction(let raw) = signed.outcomes[0] else {
            Issue.record("expected a raw transaction, got \(signed.outcomes[0])")
            return
        }
        #expect(Hex.encode(raw) == signed.results[0])
        let decoded = try SignedTransaction.decode(raw: raw)
        #expect(try decoded.recoverSender() == key.address)
        #expect(decoded.transaction.type == .legacy)
        // EIP-155: the chain id comes from the action's CAIP-2 chain.
        #expect(decoded.transaction.chainId == UInt256(8453))
        #expect(decoded.transaction.nonce == UInt256(7))
        #expect(decoded.transaction.gasLimit == UInt256(21_000))
        #expect(decoded.transaction.to == Actions.recipient)
        #expect(decoded.transaction.value == (try UInt256(text: "0x2386f26fc10000")))
        #expect(try SignedTransaction.decode(hex: signed.results[1]).recoverSender() == key.address)
    }

    @Test("eth_signTransaction of a complete EIP-1559 transaction with data and an explicit chainId")
    func signEIP1559Transaction() async throws {
        let tx = #"""
            {"from":"\#(key.address.checksummed)","to":"\#(Actions.recipient.lowercased)","value":"0x0","data":"0xa9059cbb","nonce":"0x0","gas":"0x186a0","maxFeePerGas":"0x77359400","maxPriorityFeePerGas":"0x3b9aca00","chainId":"0xa"}
            """#
        let signed = try await dispatcher.sign(actions: [Actions.signTransaction(tx, chain: TestChains.optimism)])
        let decoded = try SignedTransaction.decode(hex: signed.results[0])
        #expect(decoded.transaction.type == .eip1559)
        #expect(decoded.transaction.chainId == UInt256(10))
        #expect(decoded.transaction.data == [0xa9, 0x05, 0x9c, 0xbb])
        #expect(decoded.transaction.gasFeeCap == UInt256(2_000_000_000))
        #expect(try decoded.recoverSender() == key.address)
    }

    @Test("eth_signTransaction params: an object with from; bad fields are refused before signing")
    func signTransactionBadParams() async throws {
        let cases: [(String, String)] = [
            ("[]", "[0] (transaction): expected an object"),
            ("[\"0x00\"]", "[0] (transaction): expected an object"),
            (
                #"[{"to":"\#(Actions.recipient.lowercased)","nonce":"0x0","gas":"0x5208","gasPrice":"0x1"}]"#,
                "[0] (transaction).from: missing"
            ),
            (#"[{"from":"0x12","to":"\#(Actions.recipient.lowercased)"}]"#, "[0] (transaction): "),
            (
                #"[{"from":"\#(key.address.lowercased)","to":"\#(Actions.recipient.lowercased)","gasPrice":"0x1","maxFeePerGas":"0x2"}]"#,
                "[0] (transaction): "
            ),
        ]
        for (params, expected) in cases {
            let action = WalletRpcAction(chainId: TestChains.base, method: .signTransaction, params: params)
            let error = await #expect(throws: DispatchError.self) { try await dispatcher.sign(actions: [action]) }
            guard case .invalidParams(let text)? = error?.kind else {
                Issue.record("\(params): expected .invalidParams, got \(String(describing: error))")
                continue
            }
            #expect(text.hasPrefix(expected), "\(text)")
        }
    }

    @Test("A transaction missing nonce/gas/fees with no node for its chain cannot be signed")
    func incompleteTransactionWithoutNode() async throws {
        let tx = #"{"from":"\#(key.address.lowercased)","to":"\#(Actions.recipient.lowercased)","value":"0x1"}"#
        let error = await #expect(throws: DispatchError.self) {
            try await dispatcher.sign(actions: [Actions.signTransaction(tx)])
        }
        #expect(error?.index == 0)
        // The missing fields are named, though no node could fill them.
        #expect(
            error?.kind
                == .incompleteTransaction(missing: ["nonce", "gas", "gasPrice"], chain: TestChains.base.description),
            "\(String(describing: error))")
        #expect(
            error?.description
                == "action[0] (eth_signTransaction): transaction is missing nonce, gas, gasPrice and no Ethereum "
                + "node is configured for eip155:8453 to fill it")
    }
}
