import EthereumPrimitives
import Foundation
import SignerKit
import Testing

/// ERC-7730 descriptors (written for these tests, in Fixtures/) rendering typed data and calldata.
@Suite("ERC-7730 clear signing")
struct ClearSigningTests {
    typealias P = StandardPayloads
    let account = P.address("0x90F8bf6A479f320ead074411a4B0e7944Ea8c9C1")
    let base = ChainID(eip155: 8453)
    let vault = P.address("0x00000000000000000000000000000000000fa017")
    let router = P.address("0x00000000000000000000000000000000000f0075")

    static func fixture(_ name: String) throws -> String {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
        return try String(contentsOf: url, encoding: .utf8)
    }

    func registry() throws -> ClearSigningRegistry {
        try ClearSigningRegistry()
            .adding(jsonText: Self.fixture("erc7730-vault-eip712.json"))
            .adding(jsonText: Self.fixture("erc7730-router-contract.json"))
    }

    func deposit(amount: UInt256, chainId: UInt64 = 8453, domainName: String = "Test Vault") -> JSONValue {
        P.typedData(
            [
                (
                    "EIP712Domain",
                    P.fields([("name", "string"), ("chainId", "uint256"), ("verifyingContract", "address")])
                ),
                (
                    "Deposit",
                    P.fields([
                        ("token", "address"), ("amount", "uint256"), ("beneficiary", "address"),
                        ("lockSeconds", "uint256"),
                        ("kind", "uint8"), ("deadline", "uint256"), ("startBlock", "uint256"),
                    ])
                ),
            ], primary: "Deposit",
            domain: JSONObject([
                "name": .string(domainName), "chainId": .number(String(chainId)),
                "verifyingContract": .string(vault.checksummed),
            ]),
            message: JSONObject([
                "token": .string(P.usdcBase.checksummed), "amount": .string(amount.decimalString),
                "beneficiary": .string(P.usdcBase.checksummed), "lockSeconds": .number("93784"), "kind": .number("1"),
                "deadline": .number(String(previewNow + 3600)), "startBlock": .number("123456"),
            ]))
    }

    @Test("an eip712 descriptor renders matching typed data with every display format")
    func eip712() throws {
        let dispatcher = previewDispatcher(fixedPreviewer(descriptors: try registry()))
        let preview = try dispatcher.preview(actions: [
            P.signTypedData(account, deposit(amount: UInt256(2_500_000)), chain: base)
        ])[0]
        #expect(preview.kind == .typedData)
        #expect(preview.descriptorIntent == "Deposit into the vault")
        #expect(preview.warnings.isEmpty, "a descriptor makes the action recognised")
        #expect(
            preview.fields == [
                PreviewField(label: "Amount", value: "2.500000 USDC"),
                PreviewField(label: "For", value: "\(P.usdcBase.checksummed) (USDC)"),
                PreviewField(label: "Locked for", value: "1d 2h 3m 4s"),
                PreviewField(label: "Kind", value: "locked"),
                PreviewField(label: "Valid until", value: "2026-01-01T01:00:00Z"),
                PreviewField(label: "From block", value: "block 123456"),
                PreviewField(label: "Vault", value: vault.checksummed),
            ])
        let all = try dispatcher.preview(actions: [
            P.signTypedData(account, deposit(amount: UInt256.powerOfTwo(255)), chain: base)
        ])[0]
        #expect(all.fields.first == PreviewField(label: "Amount", value: "All of it USDC"))
    }

    @Test("a descriptor for another chain or domain name does not render")
    func noMatch() throws {
        let dispatcher = previewDispatcher(fixedPreviewer(descriptors: try registry()))
        let otherName = try dispatcher.preview(actions: [
            P.signTypedData(account, deposit(amount: UInt256(1), domainName: "Fake Vault"), chain: base)
        ])[0]
        #expect(otherName.descriptorIntent == nil)
        #expect(otherName.warnings == [.unrecognized])
        let otherChain = try dispatcher.preview(actions: [
            P.signTypedData(account, deposit(amount: UInt256(1), chainId: 10), chain: ChainID(eip155: 10))
        ])[0]
        #expect(otherChain.descriptorIntent == nil)
    }

    @Test("a contract descriptor renders matching calldata (selector from the signature, container value)")
    func contract() throws {
        let selector = ERC20Calldata.selector("payMerchant(address,uint256,address,uint64,bool)")
        let data =
            selector + P.word(P.usdcBase) + P.word(UInt256(1_000_000)) + P.word(P.merchant) + P.word(UInt256(600))
            + P.word(UInt256(1))
        let dispatcher = previewDispatcher(fixedPreviewer(descriptors: try registry()))
        let preview = try dispatcher.preview(actions: [
            P.call(from: account, to: router, data: data, value: "0x2386f26fc10000", chain: base)
        ])[0]
        #expect(preview.kind == .contractCall)
        #expect(preview.descriptorIntent == "Pay a merchant")
        #expect(preview.warnings.isEmpty)
        #expect(
            preview.fields == [
                PreviewField(label: "Pay", value: "1.000000 USDC"),
                PreviewField(label: "Merchant", value: P.merchant.checksummed),
                PreviewField(label: "Expires after", value: "10m"),
                PreviewField(label: "Refundable", value: "true"),
                PreviewField(label: "Tip", value: "0.010000000000000000 ETH"),
            ])
        // A bool word that is not 0 or 1 does not decode: no rendering, unrecognized.
        let bad = Array(data.dropLast()) + [2]
        let refused = try dispatcher.preview(actions: [P.call(from: account, to: router, data: bad, chain: base)])[0]
        #expect(refused.descriptorIntent == nil)
        #expect(refused.warnings == [.unrecognized])
    }

    @Test("malformed descriptors are refused with the path")
    func malformed() {
        let cases: [(String, String)] = [
            ("[]", "descriptor expected an object, got array"),
            (#"{"context":{}}"#, "descriptor context: expected an eip712 or contract context"),
            (
                #"{"context":{"contract":{"deployments":[]}},"display":{"formats":{}}}"#,
                "descriptor context.contract.deployments: expected a non-empty array"
            ),
            (
                #"{"context":{"contract":{"deployments":[{"chainId":1,"address":"0x12"}]}},"display":{"formats":{}}}"#,
                "descriptor context.contract.deployments[0].address: invalid address \"0x12\""
            ),
            (
                #"{"context":{"contract":{"deployments":[{"chainId":1,"address":"0x0000000000000000000000000000000000000001"}]}},"display":{"formats":{"f(string s)":{"fields":[]}}}}"#,
                "descriptor display.formats[\"f(string s)\"]: parameter 0: type string is not a static ABI type SignerKit decodes"
            ),
            (
                #"{"context":{"eip712":{"deployments":[{"chainId":1,"address":"0x0000000000000000000000000000000000000001"}]}},"display":{"formats":{"Mail":{"fields":[{"path":"a","label":"A","format":"sparkles"}]}}}}"#,
                "descriptor display.formats[\"Mail\"].fields[0].format: unknown display format \"sparkles\""
            ),
            (
                #"{"context":{"eip712":{"deployments":[{"chainId":1,"address":"0x0000000000000000000000000000000000000001"}]}},"display":{"formats":{"Mail":{"fields":[{"path":"a","$ref":"$.display.definitions.nope"}]}}}}"#,
                "descriptor display.formats[\"Mail\"].fields[0].$ref: $.display.definitions.nope is not a display definition"
            ),
            (
                #"{"context":{"eip712":{"deployments":[{"chainId":1,"address":"0x0000000000000000000000000000000000000001"}]}},"display":{"formats":{"Mail":{"fields":[{"path":"a","label":"A","format":"tokenAmount"}]}}}}"#,
                "descriptor display.formats[\"Mail\"].fields[0].params: tokenAmount needs tokenPath or token"
            ),
            (
                #"{"context":{"eip712":{"deployments":[{"chainId":1,"address":"0x0000000000000000000000000000000000000001"}]}},"display":{"formats":{"Mail":{"fields":[{"path":"a","label":"A","format":"enum","params":{"$ref":"$.metadata.enums.x"}}]}}}}"#,
                "descriptor display.formats[\"Mail\"].fields[0].params.$ref: expected a $.metadata.enums.<name> reference"
            ),
        ]
        for (text, message) in cases {
            let error = #expect(throws: ClearSigningError.self) { try ClearSigningDescriptor(jsonText: text) }
            #expect(error?.description == message)
        }
    }
}
