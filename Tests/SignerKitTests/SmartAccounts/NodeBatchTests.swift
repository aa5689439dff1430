import EthereumPrimitives
import EthereumRPC
import Foundation
import SignerKit
import SignerKitTestSupport
import Testing

/// `EthereumNode.callBatch`: `JSONRPCClient` sends one JSON-RPC batch and matches the answers by id.
@Suite("JSON-RPC batches")
struct NodeBatchTests {
    @Test("a batch to the local node: each request's result or its own error, in request order")
    func batchOverTheNode() async throws {
        let evm = try await LocalEVM.start(chainId: 8453)
        defer { evm.stop() }
        let client = JSONRPCClient(url: evm.url)
        let outcomes = try await client.callBatch([
            NodeRequest(method: "eth_chainId", params: []),
            NodeRequest(method: "eth_noSuchMethod", params: []),
            NodeRequest(method: "eth_getCode", params: [.string(TestKeys.alphaAddress), .string("latest")]),
        ])
        #expect(outcomes.count == 3)
        #expect(try outcomes[0].get() == .string("0x2105"))
        guard case .failure(.rpc(let code, _, let method)) = outcomes[1] else {
            Issue.record("expected the unknown method's own error, got \(outcomes[1])")
            return
        }
        #expect(code == -32601 && method == "eth_noSuchMethod")
        #expect(try outcomes[2].get() == .string("0x"))
    }

    @Test("answers out of order are matched by id; a missing or foreign answer is an invalid response")
    func matchingById() throws {
        let requests = [
            NodeRequest(method: "eth_chainId", params: []), NodeRequest(method: "eth_blockNumber", params: []),
        ]
        let swapped = #"[{"jsonrpc":"2.0","id":8,"result":"0x2"},{"jsonrpc":"2.0","id":7,"result":"0x1"}]"#
        let outcomes = try JSONRPCClient.batchResults(
            of: Array(swapped.utf8), status: 200, firstID: 7, requests: requests)
        #expect(try outcomes.map { try $0.get() } == [.string("0x1"), .string("0x2")])
        let missing = #"[{"jsonrpc":"2.0","id":7,"result":"0x1"}]"#
        #expect(throws: NodeError.self) {
            _ = try JSONRPCClient.batchResults(of: Array(missing.utf8), status: 200, firstID: 7, requests: requests)
        }
        let foreign = #"[{"jsonrpc":"2.0","id":7,"result":"0x1"},{"jsonrpc":"2.0","id":99,"result":"0x2"}]"#
        #expect(throws: NodeError.self) {
            _ = try JSONRPCClient.batchResults(of: Array(foreign.utf8), status: 200, firstID: 7, requests: requests)
        }
        let refused = #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches not allowed"}}"#
        #expect(throws: NodeError.self) {
            _ = try JSONRPCClient.batchResults(of: Array(refused.utf8), status: 200, firstID: 7, requests: requests)
        }
    }
}

/// A node that refuses batches: the client asks again one request at a time.
@Suite("JSON-RPC batches refused")
struct NodeBatchRefusedTests {
    @Test("a batch answered by one error object is sent again one request at a time")
    func fallsBackToOneByOne() async throws {
        let transport = ScriptedHTTPTransport([
            .status(
                200, body: #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches not supported"}}"#),
            .status(200, body: #"{"jsonrpc":"2.0","id":3,"result":"0x2105"}"#),
            .status(200, body: #"{"jsonrpc":"2.0","id":4,"error":{"code":3,"message":"execution reverted"}}"#),
        ])
        let client = JSONRPCClient(url: try #require(URL(string: "http://node.invalid")), transport: transport)
        let outcomes = try await client.callBatch([
            NodeRequest(method: "eth_chainId", params: []), NodeRequest(method: "eth_call", params: []),
        ])
        #expect(transport.requests.count == 3)
        #expect(try outcomes[0].get() == .string("0x2105"))
        guard case .failure(.rpc(3, _, "eth_call")) = outcomes[1] else {
            Issue.record("expected eth_call's own revert, got \(outcomes[1])")
            return
        }
    }
}
