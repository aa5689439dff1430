import EthereumPrimitives
import EthereumTransactions
import Foundation
import SignerKitTestSupport
import Testing

@testable import SignerKitCommands

/// Builds action lists in both shapes for the tests.
enum Actions {
    /// The fixed test key (a well-known vector key; never fund it) and its address.
    static let keyHex = TestKeys.alphaHex
    static let address = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
    /// The Ronin order's chain (its domain.chainId).
    static let chain = "eip155:2021"

    /// The two wire shapes of an action.
    enum Shape: CaseIterable { case sdk, wire }

    /// One action; `params` is the params array.
    static func action(_ shape: Shape, chain: String = chain, method: String, params: JSONValue) -> JSONValue {
        switch shape {
        case .sdk:
            .object(
                JSONObject([
                    "walletRpc": .object(
                        JSONObject([
                            "chainId": .string(chain), "method": .string(method), "params": .string(params.serialized),
                        ]))
                ]))
        case .wire:
            .object(
                JSONObject([
                    "type": .string("walletRpc"),
                    "data": .object(
                        JSONObject(["chain_id": .string(chain), "method": .string(method), "params": params])),
                ]))
        }
    }

    /// `eth_signTypedData_v4` of the Ronin order.
    static func typedData(_ shape: Shape, from: String = address) throws -> JSONValue {
        action(
            shape, method: "eth_signTypedData_v4",
            params: .array([.string(from), try JSONValue(parsing: Fixtures.text("ronin_order.json"))]))
    }

    /// `personal_sign` of `message` (0x-hex is bytes, other text UTF-8).
    static func personalSign(_ shape: Shape, _ message: String, from: String = address) -> JSONValue {
        action(shape, method: "personal_sign", params: .array([.string(message), .string(from)]))
    }

    /// A complete EIP-1559 transaction on the Ronin chain.
    static let transaction: JSONValue = .object(
        JSONObject([
            "from": .string(address), "to": .string("0x2d5fd9e4a3a225a78329a64d022581275b4ca416"),
            "value": .string("0x2a"),
            "nonce": .string("0x7"), "gas": .string("0x5208"), "maxFeePerGas": .string("0x3b9aca00"),
            "maxPriorityFeePerGas": .string("0x3b9aca00"), "chainId": .string("0x7e5"),
        ]))

    /// `eth_signTransaction` of ``transaction``.
    static func signTransaction(_ shape: Shape, _ transaction: JSONValue = transaction) -> JSONValue {
        action(shape, method: "eth_signTransaction", params: .array([transaction]))
    }

    /// The JSON text of a list.
    static func text(_ actions: [JSONValue]) -> String { JSONValue.array(actions).serialized }

    /// The mixed list: typed data, personal_sign (hex and text) and eth_signTransaction in both shapes.
    static func mixed() throws -> [JSONValue] {
        [
            try typedData(.sdk), personalSign(.wire, "0x68656c6c6f"), signTransaction(.sdk),
            try typedData(.wire), personalSign(.sdk, "hello, actions"), signTransaction(.wire),
        ]
    }
}

/// Checks the results of ``Actions/mixed()``: each recovers to `address`, in order.
func verifyMixedResults(_ result: CommandResult, address: String, sourceLocation: SourceLocation = #_sourceLocation)
    async throws
{
    #expect(result.status == 0, "\(result)", sourceLocation: sourceLocation)
    #expect(result.stderr.isEmpty, "\(result)", sourceLocation: sourceLocation)
    #expect(result.stdoutLines.count == 1, "\(result)", sourceLocation: sourceLocation)
    let results = try #require(try JSONValue(parsing: result.stdout).arrayValue, sourceLocation: sourceLocation)
        .compactMap(\.stringValue)
    try #require(results.count == 6, "\(result)", sourceLocation: sourceLocation)
    let ronin = Fixtures.path("ronin_order.json")
    for index in [0, 3] {
        expectSuccess(
            await signerkit(["recover", "typed-data", ronin, "--signature", results[index]]), [address],
            sourceLocation: sourceLocation)
    }
    expectSuccess(
        await signerkit(["recover", "message", "--hex", "0x68656c6c6f", "--signature", results[1]]), [address],
        sourceLocation: sourceLocation)
    expectSuccess(
        await signerkit(["recover", "message", "--text", "hello, actions", "--signature", results[4]]), [address],
        sourceLocation: sourceLocation)
    for index in [2, 5] {
        let signed = try SignedTransaction.decode(hex: results[index])
        #expect(try signed.recoverSender().checksummed == address, sourceLocation: sourceLocation)
        #expect(signed.transaction.type == .eip1559, sourceLocation: sourceLocation)
        #expect(signed.transaction.chainId == 2021, sourceLocation: sourceLocation)
        #expect(signed.transaction.nonce == 7, sourceLocation: sourceLocation)
        #expect(signed.transaction.value == 42, sourceLocation: sourceLocation)
    }
}

@Suite("sign --actions")
struct ActionCommandTests {
    @Test("a mixed list in both shapes: one JSON array, results in action order, each verified")
    func mixed() async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex + "\n")
        let file = try directory.write("actions.json", Actions.text(try Actions.mixed()))
        let result = await signerkit(["sign", "--actions", file, "--key-file", key])
        try await verifyMixedResults(result, address: Actions.address)
        expectNoKeyMaterial(result, key: Actions.keyHex)
        // The same list from stdin gives the same (deterministic) results.
        expectSuccess(
            await signerkit(["sign", "--key-file", key, "--actions", "-"], stdin: Actions.text(try Actions.mixed())),
            result.stdoutLines)
        // Shape does not matter: all-SDK and all-wire lists sign identically.
        let sdk = await signerkit(
            ["sign", "--actions", "-", "--key-file", key],
            stdin: Actions.text([try Actions.typedData(.sdk), Actions.signTransaction(.sdk)]))
        let wire = await signerkit(
            ["sign", "--actions", "-", "--key-file", key],
            stdin: Actions.text([try Actions.typedData(.wire), Actions.signTransaction(.wire)]))
        #expect(sdk.status == 0 && wire.status == 0)
        #expect(sdk.stdout == wire.stdout)
    }

    @Test("a keystore signs actions like its key file")
    func keystoreSource() async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        let password = try directory.write("password", "correct horse\n")
        let keystore = directory.path("keystore.json")
        expectSuccess(
            await signerkit([
                "keystore", "new", "--out", keystore, "--password-file", password, "--key-file", key, "--kdf-light",
            ]),
            [Actions.address])
        let actions = Actions.text([Actions.personalSign(.wire, "0x68656c6c6f")])
        let fromKey = await signerkit(["sign", "--actions", "-", "--key-file", key], stdin: actions)
        #expect(fromKey.status == 0)
        expectSuccess(
            await signerkit(
                ["sign", "--actions", "-", "--keystore", keystore, "--password-file", password], stdin: actions),
            fromKey.stdoutLines)
    }

    @Test("a bad action at index 2 exits 65 naming action[2]; nothing is printed")
    func badActionAtIndexTwo() async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        let good = [try Actions.typedData(.sdk), Actions.personalSign(.wire, "0x00")]
        let cases: [(JSONValue, String)] = [
            (
                .object(
                    JSONObject([
                        "walletRpc": .object(JSONObject(["method": .string("personal_sign"), "params": .string("[]")]))
                    ])),
                "action[2].chainId: missing"
            ),
            (
                Actions.action(.wire, method: "eth_foo", params: .array([])),
                "action[2] (eth_foo): unknown method eth_foo"
            ),
            (
                Actions.action(.sdk, method: "personal_sign", params: .array([.number("1")])),
                "action[2] (personal_sign): params:"
            ),
            (
                Actions.personalSign(.wire, "0x00", from: "0x0000000000000000000000000000000000000001"),
                "action[2] (personal_sign): no backend registered for account"
            ),
            (
                Actions.action(
                    .wire, chain: "eip155:1", method: "eth_signTypedData_v4",
                    params: .array([
                        .string(Actions.address), try JSONValue(parsing: Fixtures.text("ronin_order.json")),
                    ])),
                "action[2] (eth_signTypedData_v4): domain.chainId 2021 differs from the action's chain eip155:1"
            ),
            (
                Actions.action(
                    .wire, chain: "cosmos:hub", method: "personal_sign",
                    params: .array([.string("0x00"), .string(Actions.address)])),
                "action[2] (personal_sign): unsupported chain cosmos:hub"
            ),
            (
                Actions.signTransaction(
                    .wire,
                    .object(
                        JSONObject([
                            "from": .string(Actions.address), "to": .string(Actions.address),
                            "chainId": .string("0x7e5"),
                        ]))),
                "action[2] (eth_signTransaction): "
            ),
            (
                Actions.action(.sdk, method: "eth_sendTransaction", params: .array([Actions.transaction])),
                "action[2] (eth_sendTransaction): "
            ),
        ]
        for (bad, fragment) in cases {
            let text = Actions.text(good + [bad] + good)
            let result = await signerkit(["sign", "--actions", "-", "--key-file", key], stdin: text)
            expectInvalid(result, fragment)
            // With a node configured, the actions are still refused before it is contacted.
            let withNode = await signerkit(
                ["sign", "--actions", "-", "--key-file", key, "--rpc-url", "http://127.0.0.1:9"], stdin: text)
            if fragment.contains("eth_signTransaction") || fragment.contains("eth_sendTransaction") {
                expectInvalid(withNode)
            } else {
                expectInvalid(withNode, fragment)
            }
        }
    }

    @Test("list-level errors, a missing key, bad --rpc-url, an unreachable node")
    func listErrors() async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        expectInvalid(
            await signerkit(["sign", "--actions", "-", "--key-file", key], stdin: "[]"), "no actions to sign")
        expectInvalid(
            await signerkit(["sign", "--actions", "-", "--key-file", key], stdin: "{}"),
            "expected a JSON array of actions")
        expectInvalid(await signerkit(["sign", "--actions", "-", "--key-file", key], stdin: "[1,"), "invalid JSON")
        expectInvalid(
            await signerkit(["sign", "--actions", directory.path("none.json"), "--key-file", key]),
            "none.json: no such file")
        expectInvalid(await signerkit(["sign", "--key-file", key]), "missing --actions")
        let actions = Actions.text([Actions.personalSign(.wire, "0x00")])
        expectInvalid(await signerkit(["sign", "--actions", "-"], stdin: actions), "missing --key-file")
        expectInvalid(
            await signerkit(["sign", "--actions", "-", "--key-file", key, "--rpc-url", "ftp://x"], stdin: actions),
            "--rpc-url: expected an http:// or https:// URL")
        expectInvalid(
            await signerkit(
                ["sign", "--actions", "-", "--key-file", key, "--rpc-url", "http://127.0.0.1:9"], stdin: actions),
            "--rpc-url: ", "eth_chainId")
        // eth_sendTransaction needs a node.
        let send = Actions.text([
            Actions.action(.wire, method: "eth_sendTransaction", params: .array([Actions.transaction]))
        ])
        expectInvalid(
            await signerkit(["sign", "--actions", "-", "--key-file", key], stdin: send),
            "action[0] (eth_sendTransaction)", "node")
    }
}
