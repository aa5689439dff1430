import EthereumPrimitives
import Foundation
import Testing
import WalletConnectPay

@Suite("Payment links")
struct PaymentLinkTests {
    @Test(
        "isPaymentLink: links",
        arguments: [
            "https://pay.walletconnect.com/?pid=pay_123",
            "https://pay.walletconnect.com/pay_123",
            "https://staging.pay.walletconnect.com/?pid=pay_123",
            "wc:abc@2?pay=https%3A%2F%2Fpay.walletconnect.com%2F%3Fpid%3Dpay_123",
            "pay_123",
            "PAY_ABC",
            "https%3A%2F%2Fexample.com%2FPAY%2E1",
            "x?pay%3D1",
            "pay%5F9",
        ])
    func detectsLinks(_ text: String) {
        #expect(isPaymentLink(text))
        #expect(PaymentLink.isPaymentLink(text))
    }

    @Test(
        "isPaymentLink: not links",
        arguments: [
            "https://example.com/checkout",
            "wc:abc123@2?relay-protocol=irn&symKey=xyz",
            "https://payments.example.com/process",
            "abc_123",
            "",
        ])
    func rejectsOthers(_ text: String) {
        #expect(!isPaymentLink(text))
    }

    @Test(
        "payment id extraction",
        arguments: [
            ("https://pay.walletconnect.com/?pid=pay_123", "pay_123"),
            ("https://pay.walletconnect.com/pay_123", "pay_123"),
            ("https://staging.pay.walletconnect.com/?pid=pay_123", "pay_123"),
            ("https://pay.walletconnect.com/pay_path?pid=pay_query", "pay_query"),
            ("https://PAY.WalletConnect.com/pay_upper", "pay_upper"),
            ("https://pay.walletconnect.com/?pid=pay%5F456", "pay_456"),
            ("wc:abc@2?pay=https%3A%2F%2Fpay.walletconnect.com%2F%3Fpid%3Dpay_123", "pay_123"),
            ("wc:abc@2?relay-protocol=irn&symKey=xyz&pay=https%3A%2F%2Fpay.walletconnect.com%2Fpay_789", "pay_789"),
            ("pay_123", "pay_123"),
            ("PAY_ABC", "PAY_ABC"),
            ("abc_123", "abc_123"),
            ("  pay_trimmed\n", "pay_trimmed"),
            ("https://example.com/checkout", "https%3A%2F%2Fexample.com%2Fcheckout"),
            ("https://fakepay.walletconnect.com/pay_1", "https%3A%2F%2Ffakepay.walletconnect.com%2Fpay_1"),
            (
                "https://evil.pay.walletconnect.com.attacker.com/?pid=pay_1",
                "https%3A%2F%2Fevil.pay.walletconnect.com.attacker.com%2F%3Fpid%3Dpay_1"
            ),
            ("https://pay.walletconnect.com@evil.com/pay_1", "https%3A%2F%2Fpay.walletconnect.com%40evil.com%2Fpay_1"),
        ])
    func extractsIds(_ link: String, _ expected: String) throws {
        #expect(try PaymentLink.paymentId(from: link) == expected)
    }

    /// Fuzz finding (pay-link): a bare id holding `?` or `#` was returned as a payment id, and only the client's
    /// later check refused it. Extraction now returns only ids that can be one path segment of the API.
    @Test(
        "payment id extraction: no id the client would refuse",
        arguments: ["myWallectpay?paymeotId=pay_abc", "pay_1#frag", "https://pay.walletconnect.com/?pid=a%3Fb", ".."])
    func extractionRefusesInvalidIds(_ link: String) {
        #expect(throws: PaymentLinkError.self) { try PaymentLink.paymentId(from: link) }
        #expect(throws: PaymentLinkError.self) { try PaymentLink.paymentId(fromLinkOrDeepLink: link) }
    }

    @Test("payment id extraction: failures")
    func extractionFailures() {
        #expect(throws: PaymentLinkError.empty) { try PaymentLink.paymentId(from: "") }
        #expect(throws: PaymentLinkError.empty) { try PaymentLink.paymentId(from: "  \n") }
        #expect(throws: PaymentLinkError.noPaymentId("wc:abc123@2?relay-protocol=irn&symKey=xyz")) {
            try PaymentLink.paymentId(from: "wc:abc123@2?relay-protocol=irn&symKey=xyz")
        }
        #expect(throws: PaymentLinkError.noPaymentId("https://pay.walletconnect.com/")) {
            try PaymentLink.paymentId(from: "https://pay.walletconnect.com/")
        }
        #expect(throws: PaymentLinkError.unsupported("pay.walletconnect.com/pay_1")) {
            try PaymentLink.paymentId(from: "pay.walletconnect.com/pay_1")
        }
        #expect(throws: PaymentLinkError.unsupported("ftp://pay.walletconnect.com/pay_1")) {
            try PaymentLink.paymentId(from: "ftp://pay.walletconnect.com/pay_1")
        }
    }

    @Test(
        "wallet deep links",
        arguments: [
            ("yourwallet://walletconnectpay?paymentId=pay_abc", "pay_abc"),
            (
                "yourwallet://?uri=wc:abc@2?relay-protocol=irn&symKey=xyz&pay=https%3A%2F%2Fpay.walletconnect.com%2F%3Fpid%3Dpay_1",
                "pay_1"
            ),
            (
                "yourwallet://?uri=wc%3Aabc%402%3Fpay%3Dhttps%253A%252F%252Fpay.walletconnect.com%252Fpay_2&source=qr",
                "pay_2"
            ),
            ("yourwallet://wc?uri=https%3A%2F%2Fpay.walletconnect.com%2F%3Fpid%3Dpay_3", "pay_3"),
            // The integration guide's own test links, literally.
            ("yourwallet://?uri=wc:abc...&pay=pay_xyz", "pay_xyz"),
            ("yourwallet://walletconnectpay?paymentId=pay_xyz", "pay_xyz"),
            ("YourWallet://WalletConnectPay:443?paymentId=pay_4", "pay_4"),
        ])
    func deepLinks(_ link: String, _ expected: String) throws {
        let inner = try #require(PaymentLink.paymentLink(fromWalletDeepLink: link))
        #expect(try PaymentLink.paymentId(from: inner) == expected)
        #expect(try PaymentLink.paymentId(fromLinkOrDeepLink: link) == expected)
    }

    @Test("not wallet deep links")
    func notDeepLinks() throws {
        #expect(
            PaymentLink.paymentLink(fromWalletDeepLink: "yourwallet://?uri=wc:abc@2?relay-protocol=irn&symKey=xyz")
                == nil)
        #expect(PaymentLink.paymentLink(fromWalletDeepLink: "https://pay.walletconnect.com/?pid=pay_1") == nil)
        #expect(PaymentLink.paymentLink(fromWalletDeepLink: "wc:abc@2?pay=x") == nil)
        #expect(PaymentLink.paymentLink(fromWalletDeepLink: "yourwallet://other?paymentId=pay_1") == nil)
        // `walletconnectpay` must be the host, not just somewhere in the text.
        for notTheHost in [
            "yourwallet://other/walletconnectpay?paymentId=pay_1", "yourwallet://walletconnectpay.evil?paymentId=pay_1",
            "yourwallet://evil?x=walletconnectpay&paymentId=pay_1", "yourwallet:walletconnectpay?paymentId=pay_1",
        ] {
            #expect(PaymentLink.paymentLink(fromWalletDeepLink: notTheHost) == nil, "\(notTheHost)")
        }
        #expect(PaymentLink.paymentLink(fromWalletDeepLink: "pay_1") == nil)
        // Payment links go through unchanged.
        #expect(try PaymentLink.paymentId(fromLinkOrDeepLink: "https://pay.walletconnect.com/pay_9") == "pay_9")
    }

    @Test("path segments keep escapes and encode the rest")
    func pathSegments() {
        #expect(PaymentLink.pathSegment("pay_123") == "pay_123")
        #expect(PaymentLink.pathSegment("https%3A%2F%2Fexample.com") == "https%3A%2F%2Fexample.com")
        #expect(PaymentLink.pathSegment("a/b c%zz") == "a%2Fb%20c%25zz")
    }

    @Test("CAIP-10 account lists")
    func accounts() throws {
        let address = try Address("0x52908400098527886E0F7030069857D2E4169EE7")
        let list = PayAccounts.accounts(for: address)
        #expect(
            PayAccounts.wire(list)
                == [8453, 1, 10, 42161, 137].map { "eip155:\($0):0x52908400098527886E0F7030069857D2E4169EE7" })
        let parsed = try PayAccounts.parse([
            "eip155:8453:0x52908400098527886e0f7030069857d2e4169ee7",
            "eip155:8453:0x52908400098527886E0F7030069857D2E4169EE7",
            "eip155:1:0x52908400098527886E0F7030069857D2E4169EE7",
        ])
        #expect(PayAccounts.wire(parsed) == Array(PayAccounts.wire(list).prefix(2)))
        #expect(throws: PayError.invalidAccounts("the list is empty")) { try PayAccounts.parse([]) }
        #expect(throws: PayError.self) { try PayAccounts.parse(["eip155:8453:0x1234"]) }
        #expect(PayAccounts.accounts(for: [address, address], chains: [ChainID(eip155: 8453)]).count == 1)
    }
}

@Suite("Data collection URLs")
struct DataCollectionTests {
    static let collect = CollectData(
        url: "https://data-collection.walletconnect.com/ic/pay_123?accounts=eip155:1:0x123&theme=light#top",
        schema: try? JSONValue(
            parsing:
                #"{"type":"object","required":["fullName","dob"],"properties":{"fullName":{"type":"string"},"dob":{"type":"string"},"nickname":{"type":"string"}}}"#
        ),
        fields: [CollectDataField(id: "tosConfirmed", name: "Terms", required: true, type: "checkbox")])

    @Test("keeps the page's parameters and adds prefill, theme and themeVariables")
    func buildsURL() throws {
        let prefill = JSONObject([
            "fullName": .string("Ada Lovelace"), "dob": .string("1815-12-10"), "tosConfirmed": .bool(true),
            "email": .string("ada@example.com"), "nickname": .string("Ada"),
        ])
        let variables = ##"{"--wcp-accent":"#ff00aa","radius":"8px & more"}"##
        let url = try #require(
            DataCollection.url(for: Self.collect, prefill: prefill, theme: .dark, themeVariables: variables))
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        let items = try #require(components.queryItems)
        #expect(components.host == "data-collection.walletconnect.com")
        #expect(components.path == "/ic/pay_123")
        #expect(components.fragment == "top")
        #expect(items.map(\.name) == ["accounts", "prefill", "theme", "themeVariables"])
        #expect(items[0].value == "eip155:1:0x123")
        #expect(items[2].value == "dark")
        #expect(items[3].value == variables)
        let encoded = try #require(items[1].value)
        #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
        let json = try JSONValue(parsing: try #require(DataCollection.decodeBase64URL(encoded)))
        // Only the fields the merchant requires, in the wallet's order; "email" and the optional "nickname" are not sent.
        #expect(json.serialized == #"{"fullName":"Ada Lovelace","dob":"1815-12-10","tosConfirmed":true}"#)
    }

    @Test("without prefill or theme the URL is the page's own")
    func plainURL() throws {
        let collect = CollectData(url: "https://example.com/ic/pay_1?accounts=eip155%3A1%3A0x1")
        let url = try #require(DataCollection.url(for: collect))
        #expect(url.absoluteString == "https://example.com/ic/pay_1?accounts=eip155%3A1%3A0x1")
        #expect(DataCollection.url(for: CollectData(url: nil)) == nil)
        #expect(DataCollection.url(for: CollectData(url: "not a url")) == nil)
    }

    @Test("the server's own prefill, theme and themeVariables stay unless the wallet gives a value")
    func serverParametersKept() throws {
        let own = "https://example.com/ic/pay_1?prefill=c2VydmVy&theme=dark&themeVariables=%7B%7D&x=1"
        let kept = try #require(DataCollection.url(for: CollectData(url: own)))
        #expect(kept.absoluteString == own)
        let themed = try #require(DataCollection.url(for: CollectData(url: own), theme: .light))
        #expect(
            themed.absoluteString
                == "https://example.com/ic/pay_1?prefill=c2VydmVy&themeVariables=%7B%7D&x=1&theme=light")
    }

    @Test("prefill keeps keys required in anyOf/oneOf alternatives; a schema sent as JSON text is read as one")
    func alternativesAndTextSchema() throws {
        let schema =
            #"{"type":"object","required":["fullName"],"properties":{"fullName":{"type":"string"}},"anyOf":[{"required":["pobAddress"],"properties":{"pobAddress":{"type":"string"}}},{"required":["pobCountry"]}],"oneOf":[{"required":["dob"]}]}"#
        let prefill = JSONObject([
            "fullName": .string("Ada"), "pobAddress": .string("London"), "dob": .string("1815-12-10"),
            "email": .string("ada@example.com"),
        ])
        for collect in [
            try CollectData(
                json: JSONValue(parsing: #"{"url":"https://example.com/ic","schema":\#(schema)}"#), path: "c"),
            try CollectData(
                json: JSONValue(
                    parsing: #"{"url":"https://example.com/ic","schema":\#(JSONValue.string(schema).serialized)}"#),
                path: "c"),
        ] {
            #expect(collect.requiredFieldIds == ["fullName", "pobAddress", "pobCountry", "dob"])
            #expect(collect.fieldIds == ["fullName", "pobAddress"])
            let url = try #require(DataCollection.url(for: collect, prefill: prefill))
            let encoded = try #require(
                URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first?.value)
            let json = try JSONValue(parsing: try #require(DataCollection.decodeBase64URL(encoded)))
            #expect(json.serialized == #"{"fullName":"Ada","pobAddress":"London","dob":"1815-12-10"}"#)
        }
        #expect(throws: PayError.self) {
            try CollectData(json: JSONValue(parsing: #"{"schema":"{not json"}"#), path: "options.collectData")
        }
    }

    @Test("base64url has no padding and round-trips")
    func base64url() {
        for length in 0..<8 {
            let bytes = (0..<length).map { UInt8(250 - $0) }
            let text = DataCollection.base64URL(bytes)
            #expect(!text.contains("="))
            #expect(DataCollection.decodeBase64URL(text) == bytes)
        }
        #expect(DataCollection.base64URL(Array("??>".utf8)) == "Pz8-")
    }
}

/// Review findings (fuzzing's bounded-description check): a link, an id and Pay API values were quoted whole.
@Suite("Pay quotes untrusted text abbreviated")
struct PayEchoTests {
    static let huge = String(repeating: "q", count: 40_000)

    @Test func paymentLinkErrors() {
        for error in [
            PaymentLinkError.noPaymentId("wc:" + Self.huge), .unsupported(Self.huge),
            .invalidPaymentId(Self.huge, reason: "contains \"/\""),
        ] {
            #expect(error.description.count <= 200, "\(error.description.prefix(60))")
        }
    }

    @Test func amountValue() throws {
        let json = try JSONValue(parsing: #"{"unit":"iso4217/USD","value":"\#(Self.huge)"}"#)
        let options = JSONValue.object(
            JSONObject([
                "options": .array([
                    .object(
                        JSONObject([
                            "id": "o", "account": "eip155:1:0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf", "amount": json,
                            "etaS": 1, "actions": .array([]),
                        ]))
                ])
            ]))
        #expect(throws: PayError.self) { try PaymentOptionsResponse(json: options) }
        do { _ = try PaymentOptionsResponse(json: options) } catch {
            #expect(error.description.count <= 300, "\(error.description.prefix(60))")
        }
    }
}
