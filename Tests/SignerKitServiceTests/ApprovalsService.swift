import EthereumPrimitives
import EthereumRPC
import Foundation
import Secp256k1
import SignerKit
import SignerKitCurl
import SignerKitHTTPServer
import SignerKitSQLite
import SignerKitService
import SignerKitTestSupport

/// A signer service with approvers, run in this process over SQLite stores in a temporary directory (a restart
/// is a new instance on the same directory): the client `payouts` pays, `alice`, `bob` and `carol` approve for
/// `treasury`, `dave` for `ops`; the rule `large-payout` holds payments above 1 ether for 2 of `treasury`.
struct ApprovalsService {
    static let chain = ChainID(eip155: 2021)
    static let ether = UInt256(1_000_000_000_000_000_000)
    static let clients = ["payouts", "alice", "bob", "carol", "dave"]

    let directory: URL
    let node: LocalEVM
    let service: SignerService
    let handler: ServiceHTTPHandler
    let audit: ScriptedAuditTrail

    /// The rule of these tests.
    static let rule = ApprovalRule(
        "large-payout", above: [.init(chain: chain, asset: .native, above: ether)], group: "treasury", required: 2,
        lifetimeSeconds: 600)

    /// A service on `directory` (fresh when `nil`) and `node` (a new funded node when `nil`), its webhook (if
    /// any), clock, wall clock, policies (by default ``rule``) and previewer (its token registry).
    static func start(
        directory: URL? = nil, node givenNode: LocalEVM? = nil, webhook: ApprovalWebhook? = nil,
        clock: any SignerClock = SystemClock(), now: @escaping @Sendable () -> Date = { Date() },
        policies: [any ActionPolicy] = [rule], previewer: SigningPreviewer = SigningPreviewer()
    ) async throws -> ApprovalsService {
        let key = try TestKeys.signer(TestKeys.alphaHex)
        let node = try await InProcessService.node(givenNode, funding: key)
        let directory = try directory ?? InProcessService.temporaryDirectory()
        func client(_ name: String) -> String {
            let hash = Hex.encode(SHA256.hash(Array(token(name).utf8)), prefix: false)
            let approver =
                switch name {
                case "payouts": ""
                case "dave": #", "roles": ["approver"], "groups": ["ops"]"#
                default: #", "roles": ["approver"], "groups": ["treasury"]"#
                }
            return #"{"name": "\#(name)", "tokenSha256": "\#(hash)"\#(approver)}"#
        }
        let configuration = try ServiceConfiguration(
            jsonText: #"""
                {"listen": "127.0.0.1:0", "keys": [{"keyFile": "k.hex"}], "chainId": "eip155:2021",
                 "clients": [\#(clients.map(client).joined(separator: ", "))],
                 "upstream": {"eip155:2021": "\#(node.url.absoluteString)"}}
                """#, relativeTo: directory.path)
        let path = directory.appendingPathComponent("state.sqlite").path
        let audit = ScriptedAuditTrail()
        let service = try SignerService(
            configuration: configuration, signers: [key],
            upstream: [chain: JSONRPCClient(url: node.url)], policies: policies, previewer: previewer,
            journal: try SQLiteTransactionJournal(path: path), idempotency: try SQLiteIdempotencyStore(path: path),
            audit: audit, heldRequestStore: try SQLiteHeldRequestStore(path: path), webhook: webhook, clock: clock,
            now: now)
        return ApprovalsService(
            directory: directory, node: node, service: service,
            handler: ServiceHTTPHandler(service: service, log: { _ in }), audit: audit)
    }

    /// The bearer token of client `name`.
    static func token(_ name: String) -> String { "token-of-\(name)-7c2" }

    /// POSTs one JSON-RPC call of `method` with `params` (JSON text) as client `name`; the answer object.
    func call(_ name: String, _ method: String, _ params: String, key: String? = nil) async throws -> JSONValue {
        var fields = [(name: "authorization", value: "Bearer \(Self.token(name))")]
        if let key { fields.append((name: "idempotency-key", value: key)) }
        let body = #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#
        let response = await handler.handle(
            HTTPServerRequest(method: "POST", target: "/", fields: fields, body: Array(body.utf8)))
        return try JSONValue(parsing: response.body)
    }

    /// `payouts` pays `wei` to the payee with `eth_sendTransaction` (idempotency key `key`).
    func pay(_ wei: UInt256, key: String? = nil) async throws -> JSONValue {
        try await call(
            "payouts", "eth_sendTransaction",
            #"[{"from":"\#(TestKeys.alphaAddress)","to":"\#(InProcessService.payee)","value":"\#(wei.hexQuantity)"}]"#,
            key: key)
    }

    /// How many transactions of the alpha key the node has mined.
    func minedCount() async throws -> UInt256 {
        try await JSONRPCClient(url: node.url).transactionCount(of: try Address(TestKeys.alphaAddress), block: .latest)
    }
}

extension JSONValue {
    /// The error code of an answer object.
    var errorCode: Int? {
        guard case .number(let text)? = self["error"]?["code"] else { return nil }
        return Int(text)
    }
}

extension ApprovalsService {
    /// A real HTTP server on 127.0.0.1 (a free port) in front of the service, wired the way `signerkit serve`
    /// wires it: the configuration's limits, the handler's head check and answers; `observe` sees each request
    /// before it is answered. The caller stops it.
    func serve(observe: @escaping @Sendable (HTTPServerRequest) -> Void = { _ in }) throws -> HTTPServer {
        let handler = self.handler
        return try HTTPServer(
            host: "127.0.0.1", port: 0, limits: handler.limits, headCheck: { head in handler.checkHead(head) },
            handler: { request in
                observe(request)
                return await handler.handle(request)
            })
    }
}
