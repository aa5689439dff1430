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
import Synchronization
import Testing

/// A signer service run in this process: the HTTP handler `signerkit serve` puts on its server, called
/// directly with requests (no sockets), over SQLite stores in a temporary directory, signing with the
/// alpha test key and broadcasting to a local EVM node through `transport`. A restart is a new instance on
/// the same directory (the stores' files are its whole state).
struct InProcessService {
    static let token = "in-process-token-5e1"
    static let chain = ChainID(eip155: 2021)

    let directory: URL
    let node: LocalEVM
    let handler: ServiceHTTPHandler
    let journal: SQLiteTransactionJournal
    let audit: ScriptedAuditTrail
    /// What the handler logged, one JSON line each.
    let logLines: LogLines

    /// A service on `directory` (fresh when `nil`) and `node` (a new funded node when `nil`); `clientMembers`
    /// and `members` are JSON members (each list starting with a comma) added to the client and to the
    /// configuration; `policies` are the service's policies, `shadowPolicies` its policies in shadow.
    static func start(
        directory: URL? = nil, node givenNode: LocalEVM? = nil, audit: ScriptedAuditTrail = ScriptedAuditTrail(),
        idempotency: ((SQLiteIdempotencyStore) -> any IdempotencyStore)? = nil,
        transport: any HTTPTransport = CurlHTTPTransport.shared, clientMembers: String = "", members: String = "",
        clock: any SignerClock = SystemClock(), policies: [any ActionPolicy] = [],
        shadowPolicies: [any ActionPolicy]? = nil
    ) async throws -> InProcessService {
        let key = try TestKeys.signer(TestKeys.alphaHex)
        let node = try await Self.node(givenNode, funding: key)
        let directory = try directory ?? Self.temporaryDirectory()
        let tokenHash = Hex.encode(SHA256.hash(Array(token.utf8)), prefix: false)
        let configuration = try ServiceConfiguration(
            jsonText: #"""
                {"listen": "127.0.0.1:0", "keys": [{"keyFile": "k.hex"}], "chainId": "eip155:2021",
                 "clients": [{"name": "app", "tokenSha256": "\#(tokenHash)"\#(clientMembers)}],
                 "upstream": {"eip155:2021": "\#(node.url.absoluteString)"}\#(members)}
                """#, relativeTo: directory.path)
        let databasePath = directory.appendingPathComponent("state.sqlite").path
        let journal = try SQLiteTransactionJournal(path: databasePath)
        let sqliteStore = try SQLiteIdempotencyStore(path: databasePath)
        let service = try SignerService(
            configuration: configuration, signers: [key],
            upstream: [chain: JSONRPCClient(url: node.url, transport: transport)], policies: policies,
            journal: journal,
            idempotency: idempotency?(sqliteStore) ?? sqliteStore, audit: audit, clock: clock,
            shadowPolicies: shadowPolicies)
        let lines = LogLines()
        let handler = ServiceHTTPHandler(service: service, log: { line in lines.append(line) })
        return InProcessService(
            directory: directory, node: node, handler: handler, journal: journal, audit: audit, logLines: lines)
    }

    /// `given`, or a new local EVM on chain 2021 with `key`'s account funded.
    static func node(_ given: LocalEVM?, funding key: any PrehashSigner) async throws -> LocalEVM {
        if let given { return given }
        return try await LocalEVM.start(fund: [key.address], chainId: 2021)
    }

    /// A new temporary directory (removed at exit).
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signerkit-service-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        TemporaryPaths.removeAtExit(directory.path)
        return directory
    }

    /// POSTs a JSON-RPC `body` as the configured client, with `key` as its `Idempotency-Key`.
    func post(_ body: String, key: String? = nil) async -> HTTPServerResponse {
        var fields = [(name: "authorization", value: "Bearer \(Self.token)")]
        if let key { fields.append((name: "idempotency-key", value: key)) }
        return await handler.handle(
            HTTPServerRequest(method: "POST", target: "/", fields: fields, body: Array(body.utf8)))
    }

    /// An `eth_sendTransaction` of `wei` from the alpha key to `to`.
    static func payment(_ wei: Int, to: String = payee) -> String {
        #"{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[{"from":"\#(TestKeys.alphaAddress)","to":"\#(to)","value":"0x\#(String(wei, radix: 16))"}]}"#
    }

    static let payee = "0x00000000000000000000000000000000000000aa"
    static let otherPayee = "0x00000000000000000000000000000000000000bb"

    /// The transaction hash a 200 answer carries (`nil` for anything else).
    static func hash(of response: HTTPServerResponse) -> String? {
        guard response.status == 200, let answer = try? JSONValue(parsing: response.body) else { return nil }
        return answer["result"]?.stringValue
    }

    /// How many transactions of the alpha key the node has mined.
    func minedCount() async throws -> UInt256 {
        try await JSONRPCClient(url: node.url).transactionCount(of: try Address(TestKeys.alphaAddress), block: .latest)
    }

    /// The balance of `address` on the node.
    func balance(_ address: String) async throws -> UInt256 {
        let answer = try await JSONRPCClient(url: node.url).call(
            method: "eth_getBalance", params: [.string(address), .string("latest")])
        var digits = String(try #require(answer.stringValue).dropFirst(2))
        if digits.count % 2 == 1 { digits = "0" + digits }
        return try #require(UInt256(bigEndian: try Hex.decode("0x" + digits)))
    }
}

/// An audit trail that keeps every record in memory and fails on the records a test picks (a full disk, a
/// lost database): what the service must not answer, or must not broadcast, without.
final class ScriptedAuditTrail: AuditTrail {
    private let state = Mutex<(records: [CallRecord], fails: @Sendable (CallRecord) -> Bool)>(([], { _ in false }))

    /// Fails every append that holds a record for which `fails` is true (nothing of that append is kept).
    func failWhen(_ fails: @escaping @Sendable (CallRecord) -> Bool) { state.withLock { $0.fails = fails } }

    /// The records stored so far, in order.
    var records: [CallRecord] { state.withLock { $0.records } }

    func append(_ records: [CallRecord], requestID: String, at time: Date) async -> Bool {
        state.withLock { state in
            guard !records.contains(where: state.fails) else { return false }
            state.records += records
            return true
        }
    }
}

/// Log lines captured from the handler.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    /// Every line so far.
    var all: [String] { lines.withLock { $0 } }
}

extension HTTPServerResponse {
    /// The first value of header `name` (case-insensitive).
    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
}
