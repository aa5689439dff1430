import EthereumPrimitives
import Foundation
import SignerKit
import Testing

/// A fixed clock for deadline warnings: 2026-01-01T00:00:00Z.
let previewNow: UInt64 = 1_767_225_600

func fixedPreviewer(tokens: TokenRegistry = TokenRegistry(), descriptors: ClearSigningRegistry = ClearSigningRegistry())
    -> SigningPreviewer
{
    SigningPreviewer(
        tokens: tokens, descriptors: descriptors, now: { Date(timeIntervalSince1970: TimeInterval(previewNow)) })
}

func previewDispatcher(
    _ previewer: SigningPreviewer = fixedPreviewer(), @PolicyBuilder policies: () -> [any ActionPolicy] = { [] }
)
    -> RpcDispatcher
{
    var configuration = DispatchConfiguration()
    configuration.previewer = previewer
    return RpcDispatcher(configuration: configuration, policies: policies)
}

/// `SigningPreview` for every kind, from calldata and typed data built from the standards.
@Suite("Signing preview")
struct PreviewTests {
    typealias P = StandardPayloads
    let account = P.address("0x90F8bf6A479f320ead074411a4B0e7944Ea8c9C1")
    let base = ChainID(eip155: 8453)
    let unlimited = UInt256.max
    let permit2Max = UInt256(limbs: (.max, .max, 0xFFFF_FFFF, 0))

    func preview(_ action: WalletRpcAction, _ dispatcher: RpcDispatcher = previewDispatcher()) throws -> SigningPreview
    {
        let previews = try dispatcher.preview(actions: [action])
        try #require(previews.count == 1)
        return previews[0]
    }

    @Test("the ERC-20 selectors computed with SignerKit's Keccak are the known ones")
    func selectors() {
        #expect(Hex.encode(ERC20Calldata.transferSelector) == "0xa9059cbb")
        #expect(Hex.encode(ERC20Calldata.approveSelector) == "0x095ea7b3")
        #expect(Hex.encode(ERC20Calldata.transferFromSelector) == "0x23b872dd")
        #expect(Hex.encode(ERC20Calldata.increaseAllowanceSelector) == "0x39509351")
    }

    @Test("native transfer, contract creation and an unknown contract call")
    func transactions() throws {
        let native = try preview(
            P.call(from: account, to: P.merchant, data: [], value: "0xde0b6b3a7640000", chain: base))
        #expect(native.kind == .nativeTransfer)
        #expect(native.recipient == P.merchant)
        #expect(native.nativeValue == UInt256(1_000_000_000_000_000_000))
        #expect(native.chainName == "Base")
        #expect(native.warnings.isEmpty)
        #expect(native.line.contains("1.000000000000000000 native"))
        // The JSON contract: `amount` in base units — wei for a native transfer — beside `value`.
        #expect(native.json["amount"]?.stringValue == "1000000000000000000")
        #expect(native.json["value"]?.stringValue == "1000000000000000000")
        #expect(native.json["token"] == .null)
        let creation = try preview(P.call(from: account, to: nil, data: [0x60, 0x80, 0x60, 0x40], chain: base))
        #expect(creation.kind == .contractCreation)
        #expect(creation.warnings.isEmpty)
        let unknown = try preview(
            P.call(from: account, to: P.spender, data: [0xde, 0xad, 0xbe, 0xef, 0x01], chain: base))
        #expect(unknown.kind == .contractCall)
        #expect(unknown.selector == [0xde, 0xad, 0xbe, 0xef])
        #expect(unknown.warnings == [.unrecognized])
        // A transfer with a dirty address word is not a transfer.
        var dirty = P.transfer(to: P.merchant, amount: UInt256(5))
        dirty[4] = 1
        #expect(try preview(P.call(from: account, to: P.usdcBase, data: dirty, chain: base)).kind == .contractCall)
    }

    @Test("ERC-20 transfer, approve, transferFrom and increaseAllowance, formatted for known tokens")
    func erc20() throws {
        let transfer = try preview(
            P.call(
                from: account, to: P.usdcBase, data: P.transfer(to: P.merchant, amount: UInt256(1_500_000)), chain: base
            ))
        #expect(transfer.kind == .erc20Transfer)
        #expect(transfer.token == P.usdcBase)
        #expect(transfer.amount == UInt256(1_500_000))
        #expect(transfer.tokens.first?.formatted == "1.500000 USDC")
        #expect(transfer.recipient == P.merchant)
        let approve = try preview(
            P.call(from: account, to: P.usdcBase, data: P.approve(spender: P.stranger, amount: unlimited), chain: base))
        #expect(approve.kind == .erc20Approve)
        #expect(approve.spender == P.stranger)
        #expect(approve.warnings == [.unlimitedAmount])
        let from = try preview(
            P.call(
                from: account, to: P.unknownToken,
                data: P.transferFrom(from: P.stranger, to: P.merchant, amount: UInt256(42)), chain: base))
        #expect(from.kind == .erc20TransferFrom)
        #expect(from.owner == P.stranger)
        #expect(from.recipient == P.merchant)
        #expect(from.tokens.first?.formatted == nil)
        #expect(from.warnings.isEmpty)
        let increase = try preview(
            P.call(
                from: account, to: P.usdcBase,
                data: P.increaseAllowance(spender: P.spender, amount: UInt256.powerOfTwo(255)),
                chain: base))
        #expect(increase.kind == .erc20IncreaseAllowance)
        #expect(increase.warnings == [.unlimitedAmount])
    }

    @Test("EIP-2612 permit: unlimited value and a far deadline are flagged; deadline as a UTC date")
    func permit() throws {
        let hostile = try preview(
            P.signTypedData(
                account,
                P.permit(
                    token: P.usdcBase, chainId: 8453, owner: account, spender: P.stranger, value: unlimited,
                    deadline: unlimited
                ), chain: base))
        #expect(hostile.kind == .permit)
        #expect(hostile.token == P.usdcBase)
        #expect(hostile.spender == P.stranger)
        #expect(hostile.warnings == [.unlimitedAmount, .farDeadline])
        #expect(hostile.deadlineText == nil, "beyond year 9999: no ISO 8601 date")
        #expect(hostile.json["deadline"] == .null)
        #expect(hostile.json["deadlineSeconds"]?.stringValue == UInt256.max.decimalString)
        #expect(hostile.tokens.first?.formatted == "unlimited USDC")
        #expect(hostile.line.contains("until after 9999-12-31 (unix \(UInt256.max.decimalString))"))
        let fair = try preview(
            P.signTypedData(
                account,
                P.permit(
                    token: P.usdcBase, chainId: 8453, owner: account, spender: P.spender, value: UInt256(1_000_000),
                    deadline: UInt256(previewNow + 3600)), chain: base))
        #expect(fair.warnings.isEmpty)
        #expect(fair.deadlineText == "2026-01-01T01:00:00Z")
        #expect(fair.tokens.first?.formatted == "1.000000 USDC")
        let json = fair.json
        #expect(json["kind"]?.stringValue == "permit")
        #expect(json["chainId"]?.stringValue == "eip155:8453")
        #expect(json["amount"]?.stringValue == "1000000")
        #expect(json["spender"]?.stringValue == P.spender.checksummed)
        #expect(json["deadline"]?.stringValue == "2026-01-01T01:00:00Z")
        // Another owner than the signer.
        let other = try preview(
            P.signTypedData(
                account,
                P.permit(
                    token: P.usdcBase, chainId: 8453, owner: P.stranger, spender: P.spender, value: UInt256(1),
                    deadline: UInt256(previewNow + 60)), chain: base))
        #expect(other.warnings == [.ownerMismatch])
    }

    @Test("DAI's permit: allowed true is an unlimited allowance, expiry 0 never expires")
    func daiPermit() throws {
        let dai = P.address("0x6B175474E89094C44Da98b954EedeAC495271d0F")
        func document(allowed: Bool, expiry: UInt64) -> JSONValue {
            P.typedData(
                [
                    ("EIP712Domain", P.domainFields),
                    (
                        "Permit",
                        P.fields([
                            ("holder", "address"), ("spender", "address"), ("nonce", "uint256"), ("expiry", "uint256"),
                            ("allowed", "bool"),
                        ])
                    ),
                ], primary: "Permit", domain: P.tokenDomain(dai, chainId: 1, name: "Dai Stablecoin"),
                message: JSONObject([
                    "holder": .string(account.checksummed), "spender": .string(P.spender.checksummed),
                    "nonce": .number("0"), "expiry": .number(String(expiry)), "allowed": .bool(allowed),
                ]))
        }
        let mainnet = ChainID(eip155: 1)
        let forever = try preview(P.signTypedData(account, document(allowed: true, expiry: 0), chain: mainnet))
        #expect(forever.kind == .permit)
        #expect(forever.tokens.first?.formatted == "unlimited DAI")
        #expect(forever.warnings == [.unlimitedAmount, .farDeadline])
        let revoke = try preview(
            P.signTypedData(account, document(allowed: false, expiry: previewNow + 60), chain: mainnet))
        #expect(revoke.amount == .zero)
        #expect(revoke.warnings.isEmpty)
    }

    @Test(
        "Permit2 single and batch allowances: the uint160 maximum is unlimited; the latest of expiration and sigDeadline"
    )
    func permit2Allowance() throws {
        let single = try preview(
            P.signTypedData(
                account,
                P.permitSingle(
                    chainId: 8453, token: P.usdcBase, amount: permit2Max, spender: P.stranger,
                    expiration: previewNow + 2 * SigningPreviewer.oneYear, sigDeadline: previewNow + 600), chain: base))
        #expect(single.kind == .permit2Single)
        #expect(single.amount == permit2Max)
        #expect(single.warnings == [.unlimitedAmount, .farDeadline])
        #expect(single.deadline == UInt256(previewNow + 2 * SigningPreviewer.oneYear))
        let batch = try preview(
            P.signTypedData(
                account,
                P.permitBatch(
                    chainId: 8453, tokens: [(P.usdcBase, UInt256(1_000_000)), (P.unknownToken, UInt256(5))],
                    spender: P.spender, expiration: previewNow + 60, sigDeadline: previewNow + 30), chain: base))
        #expect(batch.kind == .permit2Batch)
        #expect(batch.tokens.map(\.token) == [P.usdcBase, P.unknownToken])
        #expect(batch.warnings.isEmpty)
        #expect(batch.json["tokens"]?.arrayValue?.count == 2)
    }

    @Test("Permit2 signature transfers: single, batch and the witness variant")
    func permit2Transfers() throws {
        let single = try preview(
            P.signTypedData(
                account,
                P.permitTransferFrom(
                    chainId: 8453, token: P.usdcBase, amount: UInt256(2_000_000), spender: P.spender,
                    deadline: previewNow + 600), chain: base))
        #expect(single.kind == .permit2Transfer)
        #expect(single.tokens.first?.formatted == "2.000000 USDC")
        let batch = try preview(
            P.signTypedData(
                account,
                P.permitBatchTransferFrom(
                    chainId: 8453, tokens: [(P.usdcBase, UInt256(1)), (P.usdcBase, UInt256(2))], spender: P.spender,
                    deadline: previewNow + 600), chain: base))
        #expect(batch.kind == .permit2BatchTransfer)
        #expect(batch.tokens.count == 2)
        let witness = try preview(
            P.signTypedData(
                account,
                P.permitWitnessTransferFrom(
                    chainId: 8453, token: P.usdcBase, amount: UInt256(3), spender: P.spender, deadline: previewNow - 1,
                    witnessRecipient: P.merchant), chain: base))
        #expect(witness.kind == .permit2WitnessTransfer)
        #expect(witness.fields == [PreviewField(label: "witness.recipient", value: P.merchant.checksummed)])
        #expect(witness.warnings == [.expired])
    }

    @Test("ERC-3009 transfer, receive and cancel authorizations")
    func erc3009() throws {
        let transfer = try preview(
            P.signTypedData(
                account,
                P.authorization(
                    "TransferWithAuthorization", token: P.usdcBase, chainId: 8453, from: account, to: P.merchant,
                    value: UInt256(1_000_000), validBefore: previewNow + 900), chain: base))
        #expect(transfer.kind == .erc3009Transfer)
        #expect(transfer.recipient == P.merchant)
        #expect(transfer.owner == account)
        #expect(transfer.deadlineText == "2026-01-01T00:15:00Z")
        let receive = try preview(
            P.signTypedData(
                account,
                P.authorization(
                    "ReceiveWithAuthorization", token: P.usdcBase, chainId: 8453, from: P.stranger, to: P.merchant,
                    value: UInt256(1), validBefore: previewNow + 2 * SigningPreviewer.oneYear), chain: base))
        #expect(receive.kind == .erc3009Receive)
        #expect(receive.warnings == [.farDeadline, .ownerMismatch])
        let cancel = try preview(
            P.signTypedData(
                account, P.cancelAuthorization(token: P.usdcBase, chainId: 8453, authorizer: account), chain: base))
        #expect(cancel.kind == .erc3009Cancel)
        #expect(cancel.warnings.isEmpty)
    }

    @Test("a permit with an extra field is not a permit: other typed data is a field tree, unrecognized")
    func otherTypedData() throws {
        var permit = P.permit(
            token: P.usdcBase, chainId: 8453, owner: account, spender: P.spender, value: UInt256(1),
            deadline: UInt256(1))
        guard case .object(var root) = permit, case .object(var types)? = root["types"],
            case .array(var fields)? = types["Permit"], case .object(var message)? = root["message"]
        else { Issue.record("shape"); return }
        fields.append(.object(JSONObject(["name": .string("extra"), "type": .string("string")])))
        types["Permit"] = .array(fields)
        root["types"] = .object(types)
        message["extra"] = .string("hello\nworld")
        root["message"] = .object(message)
        permit = .object(root)
        let other = try preview(P.signTypedData(account, permit, chain: base))
        #expect(other.kind == .typedData)
        #expect(other.warnings == [.unrecognized])
        #expect(other.fields.contains(PreviewField(label: "Permit.extra", value: "hello\\nworld")))
        #expect(other.fields.contains(PreviewField(label: "Permit.value", value: "1")))
    }

    @Test("messages: text, hex when not UTF-8, and EIP-4361 sign-in")
    func messages() throws {
        let text = try preview(P.personalSign(account, "I transfer all my assets to 0xbad", chain: base))
        #expect(text.kind == .message)
        #expect(text.message == "I transfer all my assets to 0xbad")
        #expect(text.warnings == [.unrecognized])
        let binary = try preview(P.personalSign(account, "0xfffe01", chain: base))
        #expect(binary.message == "0xfffe01")
        let siweText = """
            example.com wants you to sign in with your Ethereum account:
            \(account.checksummed)

            Sign in to Example.

            URI: https://example.com/login
            Version: 1
            Chain ID: 8453
            Nonce: 32891756
            Issued At: 2026-01-01T00:00:00Z
            Expiration Time: 2026-01-01T00:10:00.000Z
            """
        let siwe = try preview(P.personalSign(account, siweText, chain: base))
        #expect(siwe.kind == .siwe)
        #expect(siwe.fields.first == PreviewField(label: "domain", value: "example.com"))
        #expect(siwe.fields.contains(PreviewField(label: "statement", value: "Sign in to Example.")))
        #expect(siwe.fields.contains(PreviewField(label: "Nonce", value: "32891756")))
        #expect(siwe.deadlineText == "2026-01-01T00:10:00Z")
        #expect(siwe.warnings.isEmpty)
        // Signed in as somebody else.
        let other = try preview(
            P.personalSign(
                account, siweText.replacingOccurrences(of: account.checksummed, with: P.stranger.checksummed),
                chain: base))
        #expect(other.warnings == [.ownerMismatch])
    }

    @Test("invalid actions are refused by preview as by sign, naming the index")
    func invalid() throws {
        let good = P.personalSign(account, "hi", chain: base)
        let bad = WalletRpcAction(chainId: base, method: "personal_sign", params: "[\"hi\"]")
        let error = #expect(throws: DispatchError.self) { try previewDispatcher().preview(actions: [good, bad]) }
        #expect(error?.index == 1)
        #expect(throws: DispatchError.self) { try previewDispatcher().preview(actions: []) }
    }

    @Test("the reserved 7702 kind is never produced yet, and every kind string is distinct")
    func kinds() {
        #expect(Set(PreviewKind.allCases.map(\.rawValue)).count == PreviewKind.allCases.count)
        #expect(PreviewKind.eip7702Authorization.rawValue == "eip7702-authorization")
    }
}
