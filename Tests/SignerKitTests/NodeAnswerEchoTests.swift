import EthereumPrimitives
import EthereumRPC
import SignerKit
import Testing

/// A node's answer is untrusted text: errors quote it abbreviated, never whole (review findings made while
/// writing the json-rpc-response fuzz target's bounded-description check).
@Suite("Node answers are quoted abbreviated")
struct NodeAnswerEchoTests {
    static let huge = String(repeating: "z", count: 50_000)

    @Test func rpcErrorMessage() throws {
        let body = Array(#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"\#(Self.huge)"}}"#.utf8)
        #expect(throws: NodeError.self) { try JSONRPCClient.result(of: body, status: 200, id: 1, method: "eth_call") }
        do {
            _ = try JSONRPCClient.result(of: body, status: 200, id: 1, method: "eth_call")
        } catch {
            #expect(String(describing: error).count <= NodeError.messageLimit + 80)
            guard case .rpc(let code, let message, _) = error else { throw error }
            #expect(code == -32000)
            #expect(message == Self.huge, "the error keeps the whole message for code that reads it")
        }
    }

    @Test(arguments: ["quantity", "bytes32"])
    func invalidValues(kind: String) {
        let reader = NodeResponseReader(method: "eth_getTransactionReceipt")
        let value = JSONValue.string("0x" + Self.huge)
        let result = Result { () throws(NodeError) in
            if kind == "quantity" {
                _ = try reader.quantity(value, field: "gasUsed")
            } else {
                _ = try reader.bytes32(value, field: "blockHash")
            }
        }
        guard case .failure(let error) = result else {
            Issue.record("\(kind) accepted")
            return
        }
        #expect(String(describing: error).count <= 300)
    }
}
