import EthereumPrimitives
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// `WalletRpcAction`: the SDK shape, the Pay wire shape, the flat shape, building in code, and errors
/// that name the index and the field.
@Suite("Wallet RPC actions")
struct ActionFormatTests {
    static let account = "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23"

    @Test("SDK shape: walletRpc wrapper, params as a JSON string")
    func sdkShape() throws {
        let text = #"""
            {"walletRpc":{"chainId":"eip155:8453","method":"personal_sign","params":"[\"0x68656c6c6f\",\"\#(Self.account)\"]"}}
            """#
        let action = try WalletRpcAction(json: JSONValue(parsing: text))
        #expect(action.chainId == TestChains.base)
        #expect(action.method == "personal_sign")
        #expect(action.params == #"["0x68656c6c6f","\#(Self.account)"]"#)
    }

    @Test("Pay wire shape: type + data, chain_id, params as a real array (objects kept in order)")
    func payShape() throws {
        let text = #"""
            {"type":"walletRpc","data":{"chain_id":"eip155:8453","method":"eth_signTypedData_v4","params":["\#(Self.account)",{"b":1,"a":[true,null,"x"]}]}}
            """#
        let action = try WalletRpcAction(json: JSONValue(parsing: text))
        #expect(action.chainId == TestChains.base)
        #expect(action.method == RpcMethod.signTypedDataV4.rawValue)
        #expect(action.params == #"["\#(Self.account)",{"b":1,"a":[true,null,"x"]}]"#)
    }

    @Test("Flat shape, with chainId or chain_id, and params as a bare object")
    func flatShape() throws {
        let flat = try WalletRpcAction(
            json: JSONValue(
                parsing: #"{"chainId":"eip155:10","method":"eth_signTransaction","params":{"from":"0x01"}}"#))
        #expect(flat.chainId == TestChains.optimism)
        #expect(flat.params == #"{"from":"0x01"}"#)
        let snake = try WalletRpcAction(
            json: JSONValue(
                parsing: #"{"chain_id":"eip155:10","method":"eth_signTransaction","params":"{\"from\":\"0x01\"}"}"#))
        #expect(snake == flat)
    }

    @Test("The three shapes of one request give equal actions; sdkJSON round-trips")
    func shapesAgree() throws {
        let params = #"["0x68656c6c6f","\#(Self.account)"]"#
        let sdk = try WalletRpcAction(
            json: JSONValue(
                parsing:
                    #"{"walletRpc":{"chainId":"eip155:8453","method":"personal_sign","params":\#(jsonString(params))}}"#
            ))
        let pay = try WalletRpcAction(
            json: JSONValue(
                parsing:
                    #"{"type":"walletRpc","data":{"chain_id":"eip155:8453","method":"personal_sign","params":\#(params)}}"#
            ))
        let flat = try WalletRpcAction(
            json: JSONValue(parsing: #"{"chainId":"eip155:8453","method":"personal_sign","params":\#(params)}"#))
        #expect(sdk == pay)
        #expect(pay == flat)
        #expect(try WalletRpcAction(json: sdk.sdkJSON) == sdk)
        #expect(sdk.description == "eip155:8453 personal_sign \(params)")
    }

    @Test("Building in code: method as text or RpcMethod, params as text or JSONValue")
    func buildInCode() throws {
        let params = JSONValue.array([.string("0x68656c6c6f"), .string(Self.account)])
        let fromValue = WalletRpcAction(chainId: TestChains.base, method: "personal_sign", params: params)
        let fromEnum = WalletRpcAction(chainId: TestChains.base, method: .personalSign, params: params.serialized)
        let fromText = WalletRpcAction(
            chainId: try ChainID("eip155:8453"), method: "personal_sign",
            params: #"["0x68656c6c6f","\#(Self.account)"]"#)
        #expect(fromValue == fromEnum)
        #expect(fromEnum == fromText)
    }

    @Test("A list mixing all three shapes reads in order and signs")
    func mixedList() async throws {
        let key = try TestKeys.signer(TestKeys.alphaHex)
        let account = key.address.lowercased
        let text = #"""
            [
              {"walletRpc":{"chainId":"eip155:8453","method":"personal_sign","params":"[\"0x68656c6c6f\",\"\#(account)\"]"}},
              {"type":"walletRpc","data":{"chain_id":"eip155:1","method":"eth_signTypedData_v4","params":["\#(account)",\#(MailExample.json())]}},
              {"chainId":"eip155:8453","method":"personal_sign","params":["hello","\#(account)"]}
            ]
            """#
        let actions = try WalletRpcAction.list(jsonText: text)
        #expect(actions.map(\.method) == ["personal_sign", "eth_signTypedData_v4", "personal_sign"])
        let dispatcher = RpcDispatcher()
        try dispatcher.register(key)
        let signed = try await dispatcher.sign(actions: actions)
        #expect(signed.count == 3)
        #expect(signed.answers(actions))
        // "0x68656c6c6f" is the bytes of "hello": the first and last actions sign the same digest.
        #expect(signed.results[0] == signed.results[2])
        try expectSignature(signed.results[0], by: key.address, over: personalDigest(bytes: Array("hello".utf8)))
        try expectSignature(signed.results[1], by: key.address, over: try Bytes32(hex: MailExample.digestOnChain1))
    }

    @Test(
        "Malformed actions: ActionFormatError names the index and the field",
        arguments: [
            (#"{"method":"personal_sign","params":[]}"#, "chainId", "missing"),
            (#"{"chainId":8453,"method":"personal_sign","params":[]}"#, "chainId", "expected a CAIP-2 string"),
            (#"{"chainId":"8453","method":"personal_sign","params":[]}"#, "chainId", nil),
            (#"{"chainId":"eip155:8453","params":[]}"#, "method", "missing"),
            (#"{"chainId":"eip155:8453","method":7,"params":[]}"#, "method", "expected a string"),
            (#"{"chainId":"eip155:8453","method":"personal_sign"}"#, "params", "missing"),
            (#"{"chainId":"eip155:8453","method":"personal_sign","params":12}"#, "params", nil),
            (#"{"walletRpc":"eip155:8453"}"#, "walletRpc", "expected an object"),
            (#"{"type":"signMessage","data":{}}"#, "type", nil),
            (#"{"type":"walletRpc","data":[]}"#, "data", "expected an object"),
            (#"["eip155:8453","personal_sign"]"#, "", "expected an object"),
        ] as [(String, String, String?)])
    func malformed(element: String, field: String, problem: String?) throws {
        let good = #"{"chainId":"eip155:8453","method":"personal_sign","params":[]}"#
        let error = #expect(throws: ActionFormatError.self) {
            try WalletRpcAction.list(jsonText: "[\(good),\(good),\(element)]")
        }
        #expect(error?.index == 2)
        #expect(error?.field == field)
        if let problem { #expect(error?.problem == problem) }
        let location = field.isEmpty ? "action[2]" : "action[2].\(field)"
        #expect(error?.description.hasPrefix("\(location): ") == true, "\(String(describing: error))")
    }

    @Test("A list that is not a JSON array of actions")
    func notAList() {
        let notJSON = #expect(throws: ActionFormatError.self) { try WalletRpcAction.list(jsonText: "[{") }
        #expect(notJSON?.index == nil)
        let object = #expect(throws: ActionFormatError.self) {
            try WalletRpcAction.list(jsonText: #"{"chainId":"eip155:1"}"#)
        }
        #expect(object?.problem == "expected a JSON array of actions")
    }

    @Test("An unknown method is refused at dispatch, naming the index")
    func unknownMethod() async throws {
        let key = try TestKeys.signer(TestKeys.alphaHex)
        let dispatcher = RpcDispatcher()
        try dispatcher.register(key)
        let actions = [
            Actions.personal("hello", key.address),
            WalletRpcAction(
                chainId: TestChains.base, method: "eth_sign", params: #"["\#(key.address.lowercased)","0x00"]"#),
        ]
        let error = await #expect(throws: DispatchError.self) { try await dispatcher.sign(actions: actions) }
        #expect(error == DispatchError(index: 1, method: "eth_sign", kind: .unknownMethod))
        #expect(error?.description == "action[1] (eth_sign): unknown method eth_sign")
    }

    @Test("Non-eip155 chains, unparsable params and an empty list are refused")
    func otherRefusals() async throws {
        let key = try TestKeys.signer(TestKeys.alphaHex)
        let dispatcher = RpcDispatcher()
        try dispatcher.register(key)
        let solana = try ChainID("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp")
        let wrongChain = await #expect(throws: DispatchError.self) {
            try await dispatcher.sign(actions: [Actions.personal("hi", key.address, chain: solana)])
        }
        #expect(wrongChain?.kind == .unsupportedChain(solana.description))

        let garbage = WalletRpcAction(chainId: TestChains.base, method: .personalSign, params: "[not json")
        let badParams = await #expect(throws: DispatchError.self) {
            try await dispatcher.sign(actions: [Actions.personal("hi", key.address), garbage])
        }
        #expect(badParams?.index == 1)
        guard case .invalidParams? = badParams?.kind else {
            Issue.record("expected .invalidParams, got \(String(describing: badParams))")
            return
        }

        let empty = await #expect(throws: DispatchError.self) { try await dispatcher.sign(actions: []) }
        #expect(empty == DispatchError(index: nil, method: nil, kind: .emptyActionList))
    }
}
