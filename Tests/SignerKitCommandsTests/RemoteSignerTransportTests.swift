import EthereumPrimitives
import Foundation
import RemoteSigner
import SignerKit
import SignerKitTestSupport
import Testing

@Suite("Remote signer: transport rules on a scripted transport (retries, deadlines, the token's header)")
struct RemoteSignerTransportTests {
    static func endpoint() throws -> RemoteSignerEndpoint {
        try RemoteSignerEndpoint("https://signer.example.com/base")
    }

    /// A JSON-RPC answer with `result`.
    static func answer(_ result: JSONValue, id: Int) -> ScriptedHTTPTransport.Answer {
        .status(
            200,
            body: JSONValue.object(JSONObject(["jsonrpc": .string("2.0"), "id": .number("\(id)"), "result": result]))
                .serialized)
    }

    @Test("eth_accounts is repeated after a 503 with back-off on the injected clock; every request has the token")
    func accountsRetried() async throws {
        let transport = ScriptedHTTPTransport([
            .status(503), Self.answer(.array([.string(TestKeys.alphaAddress)]), id: 2),
        ])
        let clock = SkippingClock()
        let client = RemoteSignerClient(
            endpoint: try Self.endpoint(), kind: .signerkit, token: RemoteSignerToken("t0ken-abc"),
            transport: transport,
            clock: clock)
        let backend = try await RemoteSignerBackend.connect(client)
        #expect(backend.accounts == [RemoteActions.alpha])
        #expect(transport.requests.count == 2)
        #expect(clock.waits.count == 1)
        #expect(transport.requests.allSatisfy { $0.headers.contains(HTTPHeader("Authorization", "Bearer t0ken-abc")) })
        #expect(transport.requests.allSatisfy { $0.url.absoluteString == "https://signer.example.com/base" })
        #expect(!"\(client) \(backend)".contains("t0ken-abc"))
    }

    @Test("a signing call whose answer is lost is not repeated; the caller's deadline bounds every request")
    func signingNotRepeated() async throws {
        let transport = ScriptedHTTPTransport([Self.answer(.array([.string(TestKeys.alphaAddress)]), id: 1)])
        let clock = SkippingClock()
        let client = RemoteSignerClient(
            endpoint: try Self.endpoint(), kind: .web3signer, transport: transport, clock: clock)
        let dispatcher = try RemoteActions.dispatcher(try await RemoteSignerBackend.connect(client))
        transport.enqueue(.failure(.outcomeUnknown("connection reset")))
        let deadline = clock.now.advanced(by: .seconds(3))
        let action = try RemoteActions.list([Actions.personalSign(.sdk, "0x68656c6c6f", from: TestKeys.alphaAddress)])
        do throws(DispatchError) {
            _ = try await dispatcher.sign(actions: action, deadline: deadline)
            Issue.record("signed without an answer")
        } catch {
            guard case .backend(.underlying(_, let underlying)) = error.kind,
                case .outcomeUnknown(let call, _)? = underlying as? RemoteSignerError
            else {
                Issue.record("not outcomeUnknown: \(error)")
                return
            }
            #expect(call == "eth_sign")
        }
        // eth_sendTransaction is sent by the dispatcher: without the chain's node it is refused before any request.
        var send = RemoteActions.transactions(from: TestKeys.alphaAddress)[2].objectValue ?? JSONObject()
        send["chainId"] = nil
        let sendAction = try RemoteActions.list([
            Actions.action(.sdk, method: "eth_sendTransaction", params: .array([.object(send)]))
        ])
        do throws(DispatchError) {
            _ = try await dispatcher.sign(actions: sendAction)
            Issue.record("eth_sendTransaction without a node was signed")
        } catch {
            guard case .noNode = error.kind else { throw error }
        }
        #expect(transport.requests.count == 2)  // eth_accounts, then eth_sign once
        #expect(clock.waits.isEmpty)
        #expect(transport.requests[1].deadline <= deadline)
        let body = try JSONValue(parsing: try #require(transport.requests[1].body))
        #expect(body["method"]?.stringValue == "eth_sign")
        #expect(body["params"] == .array([.string(TestKeys.alphaAddress), .string("0x68656c6c6f")]))
    }
}
