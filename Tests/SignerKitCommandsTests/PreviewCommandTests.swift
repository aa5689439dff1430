import EthereumPrimitives
import Foundation
import Testing
import WalletConnectPay
import WalletConnectPayTesting

@testable import SignerKitCommands

/// `signerkit preview`, `sign --policy` and `pay` showing and refusing what actions really do.
@Suite("signerkit preview and policies")
struct PreviewCommandTests {
    static let chain = "eip155:8453"
    static let usdc = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
    static let stranger = "0x000000000000000000000000000000000badbad0"
    static let max = UInt256.max.decimalString

    static func fields(_ list: [(String, String)]) -> JSONValue {
        .array(list.map { .object(JSONObject(["name": .string($0.0), "type": .string($0.1)])) })
    }

    /// The hostile EIP-2612 permit of the issue: 2^256−1 with deadline 2^256−1 to a third party.
    static func hostilePermit() -> JSONValue {
        let typed = JSONValue.object(
            JSONObject([
                "types": .object(
                    JSONObject([
                        "EIP712Domain": fields([
                            ("name", "string"), ("version", "string"), ("chainId", "uint256"),
                            ("verifyingContract", "address"),
                        ]),
                        "Permit": fields([
                            ("owner", "address"), ("spender", "address"), ("value", "uint256"), ("nonce", "uint256"),
                            ("deadline", "uint256"),
                        ]),
                    ])),
                "primaryType": .string("Permit"),
                "domain": .object(
                    JSONObject([
                        "name": .string("USD Coin"), "version": .string("2"), "chainId": .number("8453"),
                        "verifyingContract": .string(usdc),
                    ])),
                "message": .object(
                    JSONObject([
                        "owner": .string(Actions.address), "spender": .string(stranger), "value": .string(max),
                        "nonce": .number("0"), "deadline": .string(max),
                    ])),
            ]))
        return Actions.action(
            .wire, chain: chain, method: "eth_signTypedData_v4", params: .array([.string(Actions.address), typed]))
    }

    /// An ERC-20 `transfer` of 2.5 USDC as an `eth_signTransaction` (complete, so no node is needed).
    static func usdcTransfer() -> JSONValue {
        let data =
            "0xa9059cbb" + String(repeating: "0", count: 24) + "00000000000000000000000000000000c0ffee00"
            + String(repeating: "0", count: 58) + "2625a0"
        let tx = JSONValue.object(
            JSONObject([
                "from": .string(Actions.address), "to": .string(usdc), "value": .string("0x0"), "data": .string(data),
                "nonce": .string("0x0"), "gas": .string("0x186a0"), "maxFeePerGas": .string("0x3b9aca00"),
                "maxPriorityFeePerGas": .string("0x1"), "chainId": .string("0x2105"),
            ]))
        return Actions.action(.sdk, chain: chain, method: "eth_signTransaction", params: .array([tx]))
    }

    func files() throws -> (TemporaryDirectory, actions: String, key: String) {
        let directory = try TemporaryDirectory()
        let actions = try directory.write(
            "actions.json",
            Actions.text([
                Self.hostilePermit(), Self.usdcTransfer(),
                Actions.personalSign(.sdk, "I transfer all my assets to \(Self.stranger)"),
            ]))
        let key = try directory.write("key", Actions.keyHex)
        return (directory, actions, key)
    }

    @Test("preview --json: one object per action with kind, token, amount, spender/recipient, deadline, warnings")
    func json() async throws {
        let (directory, actions, _) = try files()
        let result = await signerkit(["preview", "--actions", actions, "--json"])
        withExtendedLifetime(directory) {}
        #expect(result.status == 0, "\(result)")
        let array = try #require(try JSONValue(parsing: result.stdout).arrayValue)
        #expect(array.count == 3)
        #expect(array[0]["index"] == .number("0"))
        #expect(array[0]["chainId"]?.stringValue == "eip155:8453")
        #expect(array[0]["method"]?.stringValue == "eth_signTypedData_v4")
        #expect(array[0]["account"]?.stringValue == Actions.address)
        #expect(array[0]["kind"]?.stringValue == "permit")
        #expect(array[0]["token"]?.stringValue == Self.usdc)
        #expect(array[0]["amount"]?.stringValue == Self.max)
        #expect(array[0]["spender"]?.stringValue == (try Address(Self.stranger)).checksummed)
        #expect(array[0]["deadline"] == .null)
        #expect(array[0]["amountFormatted"]?.stringValue == "unlimited USDC")
        #expect(array[0]["warnings"] == .array([.string("unlimited-amount"), .string("far-deadline")]))
        #expect(array[1]["kind"]?.stringValue == "erc20-transfer")
        #expect(array[1]["amount"]?.stringValue == "2500000")
        #expect(array[1]["amountFormatted"]?.stringValue == "2.500000 USDC")
        #expect(array[1]["recipient"]?.stringValue == "0x00000000000000000000000000000000C0FfeE00")
        #expect(array[1]["deadline"] == .null)
        #expect(array[2]["kind"]?.stringValue == "message")
        #expect(array[2]["warnings"] == .array([.string("unrecognized")]))
    }

    @Test("preview prints one line per action; invalid input exits 65 naming the action")
    func lines() async throws {
        let (directory, actions, _) = try files()
        let result = await signerkit(["preview", "--actions", actions])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.count == 3)
        #expect(
            result.stdoutLines[0].hasPrefix(
                "action[0] Base (eip155:8453) eth_signTypedData_v4 by \(Actions.address): permit"))
        #expect(result.stdoutLines[0].hasSuffix("[warnings: unlimited-amount, far-deadline]"))
        #expect(result.stdoutLines[1].contains("erc20-transfer 2.500000 USDC"))
        let bad = try directory.write(
            "bad.json", #"[{"chainId":"eip155:8453","method":"personal_sign","params":"[1]"}]"#)
        expectInvalid(await signerkit(["preview", "--actions", bad]), "action[0] (personal_sign): params:")
    }

    @Test("sign --policy: a refusal exits 65 naming the action and policy, nothing printed; a passing policy signs")
    func signPolicy() async throws {
        let (directory, actions, key) = try files()
        let strict = try directory.write("strict.json", #"{"noUnlimitedApprovals":true}"#)
        expectInvalid(
            await signerkit(["sign", "--actions", actions, "--key-file", key, "--policy", strict]),
            "action[0] (eth_signTypedData_v4): refused by policy NoUnlimitedApprovals: permit of an unlimited amount")
        let recognized = try directory.write("recognized.json", #"{"requireRecognized":true}"#)
        expectInvalid(
            await signerkit(["sign", "--actions", actions, "--key-file", key, "--policy", recognized]),
            "action[2] (personal_sign): refused by policy RequireRecognized")
        let cap = try directory.write(
            "cap.json", #"{"tokenSpendCap":[{"chainId":"eip155:8453","token":"\#(Self.usdc)","maximum":"2500000"}]}"#)
        let transferOnly = try directory.write("one.json", Actions.text([Self.usdcTransfer()]))
        let signed = await signerkit(["sign", "--actions", transferOnly, "--key-file", key, "--policy", cap])
        #expect(signed.status == 0, "\(signed)")
        let lower = try directory.write(
            "lower.json", #"{"tokenSpendCap":[{"chainId":"eip155:8453","token":"\#(Self.usdc)","maximum":"2499999"}]}"#)
        expectInvalid(
            await signerkit(["sign", "--actions", transferOnly, "--key-file", key, "--policy", lower]),
            "action[0] (eth_signTransaction): refused by policy TokenSpendCap")
        let typo = try directory.write("typo.json", #"{"noUnlimitedApproval":true}"#)
        expectInvalid(
            await signerkit(["sign", "--actions", actions, "--key-file", key, "--policy", typo]),
            "noUnlimitedApproval: unknown policy")
    }

    @Test("pay: hostile options skipped with their reason, preview lines before results; --policy refuses")
    func pay() async throws {
        let service = try LocalPayService(
            configuration: LocalPayService.Configuration(pollInMs: 30, processingTime: .milliseconds(100)))
        defer { service.stop() }
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        let api = service.baseURL.absoluteString
        let hostileOnly = service.createPayment(.init(optionKinds: [.hostileUnlimitedPermit]))
        expectInvalid(
            await signerkit(["pay", hostileOnly, "--api-url", api, "--key-file", key, "--app-id", "a"]),
            "not the Permit2 contract")
        let mixed = service.createPayment(.init(optionKinds: [.hostilePersonalSign, .erc3009]))
        let paid = await signerkit(["pay", mixed, "--api-url", api, "--key-file", key, "--app-id", "a"])
        #expect(paid.status == 0, "\(paid)")
        let lines = paid.stdoutLines
        #expect(lines.contains { $0.hasPrefix("skipped: opt_hostilePersonalSign_8453_0: action[0] (message)") })
        let preview = try #require(
            lines.firstIndex { $0.hasPrefix("preview: action[0] Base (eip155:8453) eth_signTypedData_v4") })
        let result = try #require(lines.firstIndex { $0.hasPrefix("result[0]: ") })
        #expect(preview < result)
        #expect(lines[preview].contains("erc3009-receive 1.000000 USDC"))
        #expect(service.requests(to: .confirm).count == 1)
        let cap = try directory.write(
            "cap.json", #"{"tokenSpendCap":[{"chainId":"eip155:8453","token":"\#(Self.usdc)","maximum":"999999"}]}"#)
        let capped = service.createPayment(.init(optionKinds: [.erc3009]))
        let refused = await signerkit([
            "pay", capped, "--api-url", api, "--key-file", key, "--app-id", "a", "--policy", cap,
        ])
        expectInvalid(refused, "refused by policy TokenSpendCap")
        #expect(refused.stderr.hasPrefix("error: action[0] (eth_signTypedData_v4): refused by policy"), "\(refused)")
        #expect(service.requests(to: .confirm).count == 1)
        let chosen = service.createPayment(.init(optionKinds: [.hostilePersonalSign, .erc3009]))
        expectInvalid(
            await signerkit([
                "pay", chosen, "--api-url", api, "--key-file", key, "--app-id", "a", "--option",
                "opt_hostilePersonalSign_8453_0",
            ]),
            "not an action a payment needs")
        #expect(service.requests(to: .confirm).count == 1)
    }
}
