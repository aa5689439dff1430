import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitCurl
import SignerKitService
import SignerKitTestSupport
import Synchronization
import Testing

/// A node transport that answers some JSON-RPC methods itself (a hostile or broken node), forwards the
/// rest to the real node, and records every method name it was asked.
private final class OverridingNodeTransport: HTTPTransport {
    private let results: [String: String]
    private let asked = Mutex<[String]>([])

    /// Answers each method in `results` with that result text (raw JSON).
    init(_ results: [String: String] = [:]) { self.results = results }

    /// Every method the node was asked, in order.
    var methods: [String] { asked.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let call = request.body.flatMap { try? JSONValue(parsing: $0) }
        if let method = call?["method"]?.stringValue { asked.withLock { $0.append(method) } }
        if let call, let method = call["method"]?.stringValue, let result = results[method] {
            let id = call["id"]?.serialized ?? "null"
            return HTTPResponse(
                status: 200, headers: [HTTPHeader("content-type", "application/json")],
                body: Array(#"{"jsonrpc":"2.0","id":\#(id),"result":\#(result)}"#.utf8))
        }
        return try await CurlHTTPTransport.shared.send(request)
    }
}

@Suite("The signer service under attack and misconfiguration", .serialized)
struct ServiceHardeningTests {
    /// 1,000 ETH in wei, as a hex quantity.
    static let thousandEther = "\"0x3635c9adc5dea00000\""

    @Test("without a policy file the CLI's fee and gas caps apply, to node-filled and given values alike")
    func defaultCaps() async throws {
        let hostile = OverridingNodeTransport([
            "eth_maxPriorityFeePerGas": Self.thousandEther, "eth_gasPrice": Self.thousandEther,
        ])
        let service = try await InProcessService.start(transport: hostile)
        let payee = InProcessService.payee
        let from = TestKeys.alphaAddress
        let refused: [(String, String)] = [
            (InProcessService.payment(1), "fee per gas"),  // node-filled 1,000 ETH tip
            (
                #"{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[{"from":"\#(from)","to":"\#(payee)","gasPrice":\#(Self.thousandEther),"gas":"0x5208"}]}"#,
                "fee per gas"
            ),
            (
                #"{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[{"from":"\#(from)","to":"\#(payee)","maxFeePerGas":"0x0","maxPriorityFeePerGas":"0x0","gas":"0xffffffffffffffff"}]}"#,
                "gas limit"
            ),
        ]
        for (body, reason) in refused {
            let response = await service.post(body)
            let answer = try JSONValue(parsing: response.body)
            #expect(answer["error"]?["code"] == .number(String(JSONRPCError.policyRefusedCode)), "\(answer.serialized)")
            #expect(answer["error"]?["message"]?.stringValue?.contains(reason) == true, "\(answer.serialized)")
        }
        #expect(try await service.minedCount() == 0, "nothing was broadcast")
        let honest = try await InProcessService.start(node: service.node)
        #expect(InProcessService.hash(of: await honest.post(InProcessService.payment(1))) != nil, "a sane fee is paid")
    }

    @Test("a policy file's caps replace the defaults they name; the others stay")
    func policyFileCaps() {
        let policies = DefaultTransactionCaps.applied(
            to: [FeeCap(maxFeePerGas: UInt256(5)), AllowedMethods([.personalSign])])
        #expect(policies.count == 3 && policies[0] is AllowedMethods)
        let fee = policies.compactMap { $0 as? FeeCap }
        #expect(fee.count == 1 && fee[0].maxFeePerGas == UInt256(5))
        #expect(fee[0].maxTotalFee == DefaultTransactionCaps.maxTotalFee, "the unset total keeps its default")
        #expect(policies.compactMap { $0 as? GasLimitCap }.map(\.maximumGas) == [DefaultTransactionCaps.maximumGas])
    }

    @Test("two clients with one token (or one name) are refused, at start and on reload")
    func duplicateTokens() async throws {
        let hash = String(repeating: "ab", count: 32)
        let text = #"""
            {"listen": "127.0.0.1:0", "keys": [{"keyFile": "k.hex"}],
             "clients": [{"name": "a", "tokenSha256": "\#(hash)"}, {"name": "b", "tokenSha256": "0x\#(hash.uppercased())"}]}
            """#
        let error = #expect(throws: ServiceConfigurationError.self) {
            try ServiceConfiguration(jsonText: text, relativeTo: "/tmp")
        }
        #expect(error?.description == "configuration: clients[1].tokenSha256: the same token as clients[0]")
        let service = try await InProcessService.start()
        let clients = try #require(service.handler.service.clients.first)
        var twin = clients
        twin.name = "twin"
        #expect(throws: ServiceConfigurationError.self) {
            try service.handler.service.reload(clients: [clients, twin], policies: [])
        }
        #expect(service.handler.service.clients.count == 1, "nothing replaced")
    }

    @Test("pass-through: only the allow-listed read-only names, matched exactly; the client's chains apply")
    func passThrough() async throws {
        let node = OverridingNodeTransport()
        let service = try await InProcessService.start(transport: node)
        let refused = [
            "eth_signTypedData_v3", "eth_signTypedData_v1", #"eth_sign\u0000"#, #"eth_sendTransaction\n"#,
            "eth_sendRawTransaction", "eth_unlockAccount", "personal_unlockAccount", "eth_coinbase", "ETH_BLOCKNUMBER",
            "eth_blockNumber ", "debug_traceCall", "admin_peers", "anvil_setBalance",
        ]
        for name in refused {
            let response = await service.post(#"{"jsonrpc":"2.0","id":1,"method":"\#(name)","params":[]}"#)
            let answer = try JSONValue(parsing: response.body)
            #expect(answer["error"]?["code"] == .number("-32601"), "\(name): \(answer.serialized)")
        }
        #expect(node.methods.isEmpty, "nothing reached the node: \(node.methods)")
        let read = try JSONValue(
            parsing: await service.post(#"{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}"#).body)
        #expect(read["result"]?.stringValue?.hasPrefix("0x") == true, "\(read.serialized)")
        #expect(node.methods == ["eth_blockNumber"])

        let limited = try await InProcessService.start(
            node: service.node, transport: node, clientMembers: #", "chains": ["eip155:1"]"#)
        let forbidden = try JSONValue(
            parsing: await limited.post(#"{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}"#).body)
        #expect(forbidden["error"]?["code"] == .number("-32001"), "\(forbidden.serialized)")
        let payment = try JSONValue(parsing: await limited.post(InProcessService.payment(1)).body)
        #expect(payment["error"]?["code"] == .number("-32001"), "a call without chainId goes to the default chain")
        #expect(node.methods == ["eth_blockNumber"], "the limited client reached no node")
    }

    @Test("pass-through configuration: names are checked; signing, sending and account names are refused")
    func passThroughConfiguration() throws {
        func configuration(_ list: String) throws(ServiceConfigurationError) -> ServiceConfiguration {
            try ServiceConfiguration(
                jsonText: #"""
                    {"listen": "127.0.0.1:0", "keys": [{"keyFile": "k.hex"}], "passThrough": \#(list),
                     "clients": [{"name": "a", "tokenSha256": "\#(String(repeating: "ab", count: 32))"}]}
                    """#, relativeTo: "/tmp")
        }
        #expect(
            try configuration(#"["eth_blockNumber","net_version"]"#).passThrough == ["eth_blockNumber", "net_version"])
        #expect(try configuration(#"[]"#).passThrough.isEmpty)
        for (list, path) in [
            (#"["eth_sendRawTransaction"]"#, "passThrough[0]"),
            (#"["eth_call","eth_signTypedData_v3"]"#, "passThrough[1]"),
            (#"["personal_unlockAccount"]"#, "passThrough[0]"), (#"["eth_accounts"]"#, "passThrough[0]"),
            (#"["eth_call\u0000"]"#, "passThrough[0]"), (#"["debug_traceCall"]"#, "passThrough[0]"),
        ] {
            let error = #expect(throws: ServiceConfigurationError.self) { try configuration(list) }
            #expect(error?.path == path, "\(list): \(String(describing: error))")
        }
    }

    @Test("a client allowed eth_sign uses it without personal_sign, and only it")
    func ethSignAlone() async throws {
        let service = try await InProcessService.start(
            clientMembers: #", "methods": ["eth_sign"]"#, members: #", "enableEthSign": true"#)
        let from = TestKeys.alphaAddress
        let signed = try JSONValue(
            parsing: await service.post(
                #"{"jsonrpc":"2.0","id":1,"method":"eth_sign","params":["\#(from)","0x68656c6c6f"]}"#
            ).body)
        #expect(signed["result"]?.stringValue?.count == 132, "\(signed.serialized)")
        let personal = try JSONValue(
            parsing: await service.post(
                #"{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x68656c6c6f","\#(from)"]}"#
            ).body)
        #expect(personal["error"]?["code"] == .number("-32001"), "\(personal.serialized)")
    }

    @Test("one deadline per HTTP request: a batch's calls share it; a call that would begin after it is not run")
    func wholeRequestDeadline() async throws {
        let clock = ManualClock()
        // Each node call takes 600 ms of the service's clock; the request may take 1 s in all.
        let slow = ClockAdvancingTransport(clock: clock, by: .milliseconds(600))
        let service = try await InProcessService.start(
            transport: slow, members: #", "limits": {"requestTimeoutMs": 1000, "idempotencyLeaseMs": 2000}"#,
            clock: clock)
        let call = #"{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}"#
        let answers = try JSONValue(parsing: await service.post("[\(call),\(call),\(call)]").body)
        let codes = try #require(answers.arrayValue).map { $0["error"]?["code"]?.serialized ?? "ok" }
        #expect(codes == ["ok", "ok", String(JSONRPCError.requestTimeUsedUp.code)], "\(answers.serialized)")
        #expect(slow.calls == 2, "the third call never reached the node")
    }
}

/// Forwards to the real node and advances a manual clock by a fixed time per call: a slow node, on the clock
/// the service reads.
private final class ClockAdvancingTransport: HTTPTransport {
    private let clock: ManualClock
    private let step: Duration
    private let count = Mutex(0)

    init(clock: ManualClock, by step: Duration) {
        self.clock = clock
        self.step = step
    }

    /// How many calls reached the node.
    var calls: Int { count.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        count.withLock { $0 += 1 }
        clock.advance(by: step)
        return try await CurlHTTPTransport.shared.send(request)
    }
}
