import EthereumPrimitives
import SignerKit
import Testing

/// `wallet_sendCalls` params read strictly: every refusal names its field and carries EIP-5792's code.
@Suite("wallet_sendCalls params")
struct CallBatchRequestTests {
    static let from = "0xd46e8dd67c5d32be8058bb8eb970870f07244567"
    static let to = "0x54f1c1965b355e1ab9ec3465616136be35bb5ff7"

    static func params(_ members: String, calls: String = #"[{"to":"\#(to)","value":"0x1","data":"0xabcd"}]"#)
        throws -> JSONValue
    {
        try JSONValue(
            parsing:
                #"{"version":"2.0.0","from":"\#(from)","chainId":"0x2105","atomicRequired":true,"calls":\#(calls)\#(members)}"#
        )
    }

    @Test("a valid request reads back its fields; a missing value and data are zero and empty")
    func valid() throws {
        let request = try CallBatchRequest(
            json: try Self.params(#","id":"pay-1","capabilities":{"paymasterService":{"url":"x","optional":true}}"#))
        #expect(request.id == "pay-1")
        #expect(request.chain == ChainID(eip155: 8453))
        #expect(request.atomicRequired)
        #expect(request.calls == [ERC7821Batch.Call(to: try Address(Self.to), value: 1, data: [0xab, 0xcd])])
        let bare = try CallBatchRequest(json: try Self.params("", calls: #"[{"to":"\#(Self.to)"}]"#))
        #expect(bare.calls[0].value == .zero && bare.calls[0].data.isEmpty && bare.id == nil)
        #expect(request.digest != bare.digest)
    }

    @Test(
        "refusals name the field",
        arguments: [
            (#","extra":1"#, nil as String?, "extra", -32602),
            (#","id":"""#, nil, "id", -32602),
            (#","id":"a\nb""#, nil, "id", -32602),
            (#","capabilities":{"paymasterService":{"url":"x"}}"#, nil, "paymasterService", 5700),
            ("", #"[{"to":"\#(to)","value":"12"}]"#, "calls[0].value", -32602),
            ("", #"[{"data":"0x00"}]"#, "calls[0].to", -32602),
            ("", #"[{"to":"\#(to)","data":"abcd"}]"#, "calls[0].data", -32602),
            ("", #"[{"to":"\#(to)","capabilities":{"x":{}}}]"#, "\"x\"", 5700),
            ("", "[]", "calls", -32602),
            (
                "", "[" + Array(repeating: #"{"to":"\#(to)"}"#, count: 17).joined(separator: ",") + "]", "at most 16",
                5740
            ),
        ])
    func refusals(members: String, calls: String?, names: String, code: Int) throws {
        let json =
            try calls.map { try Self.params(members, calls: $0) } ?? Self.params(members)
        #expect {
            _ = try CallBatchRequest(json: json)
        } throws: { error in
            guard let error = error as? CallBatchError else { return false }
            return error.description.contains(names) && error.code == code
        }
    }

    @Test("version, chainId and atomicRequired are checked")
    func header() throws {
        for (text, field) in [
            (#"{"version":"1.0","from":"\#(Self.from)","chainId":"0x1","atomicRequired":true,"calls":[]}"#, "version"),
            (#"{"version":"2.0.0","from":"\#(Self.from)","chainId":"1","atomicRequired":true,"calls":[]}"#, "chainId"),
            (#"{"version":"2.0.0","from":"\#(Self.from)","chainId":"0x1","calls":[]}"#, "atomicRequired"),
            (#"{"version":"2.0.0","from":"0x12","chainId":"0x1","atomicRequired":false,"calls":[]}"#, "from"),
            ("[]", "params[0]"),
        ] {
            #expect(throws: CallBatchError.self) { try CallBatchRequest(json: try JSONValue(parsing: text)) }
            do { _ = try CallBatchRequest(json: try JSONValue(parsing: text)) } catch {
                #expect("\(error)".contains(field), "\(error)")
            }
        }
    }
}
