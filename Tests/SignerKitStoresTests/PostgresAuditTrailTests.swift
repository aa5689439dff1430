import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitPostgres
import SignerKitService
import SignerKitTestSupport
import Testing

/// The PostgreSQL audit trail: one row per call, columns and the `jsonb` record read back through `psql`.
@Suite("Audit trail in PostgreSQL")
struct PostgresAuditTrailTests {
    @Test("appended records read back: the columns, and the record as jsonb")
    func appendAndReadBack() async throws {
        let server = try await PostgresServer.shared.value
        let database = try await server.createDatabase()
        let trail = try await PostgresAuditTrail(configuration: server.configuration(database: database))
        var signed = CallRecord(client: "alice", method: "personal_sign")
        signed.chains = [ChainID(eip155: 8453)]
        signed.accounts = [try Address("0x2d5fd9e4a3a225a78329a64d022581275b4ca416")]
        signed.backends = ["software"]
        signed.resultHash = Keccak256.hash(Array("result".utf8))
        signed.duration = .milliseconds(12)
        var refused = CallRecord(client: "alice", method: "eth_\u{0}sign")
        refused.errorCode = -32_003
        let time = Date(timeIntervalSince1970: 1_714_564_800.25)
        #expect(await trail.append([signed, refused], requestID: "req-1", at: time))
        #expect(await trail.append([CallRecord(client: "bob", method: "eth_chainId")], requestID: "req-2", at: time))

        let rows = try await server.psql(
            """
            SELECT request_id, call, client, method, outcome, coalesce(code::text, '-'),
            coalesce(encode(result_hash, 'hex'), '-'), extract(epoch FROM time)::numeric(16, 2), record::text
            FROM signerkit_audit ORDER BY id
            """, database: database
        ).split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
        try #require(rows.count == 3)
        #expect(
            Array(rows[0].prefix(8)) == [
                "req-1", "0", "alice", "personal_sign", "ok", "-", String(signed.resultHash?.hex.dropFirst(2) ?? ""),
                "1714564800.25",
            ])
        #expect(
            Array(rows[1].prefix(8)) == [
                "req-1", "1", "alice", "eth_\u{FFFD}sign", "error", "-32003", "-", "1714564800.25",
            ])
        #expect(Array(rows[2].prefix(5)) == ["req-2", "0", "bob", "eth_chainId", "ok"])
        // The outcome column is the record's own: an intent written before signing, a replayed answer.
        var intent = CallRecord(client: "carol", method: "eth_sendTransaction")
        intent.intent = true
        var replayed = CallRecord(client: "carol", method: "eth_sendTransaction")
        replayed.replayed = true
        #expect(await trail.append([intent], requestID: "req-3", at: time))
        #expect(await trail.append([replayed], requestID: "req-4", at: time))
        let outcomes = try await server.psql(
            "SELECT outcome || '=' || (record->>'outcome') FROM signerkit_audit WHERE client = 'carol' ORDER BY id",
            database: database)
        #expect(outcomes.split(separator: "\n") == ["intent=intent", "replayed=replayed"])
        // The jsonb column is the call's whole record (jsonb orders keys its own way: compare as JSON).
        let stored = try JSONValue(parsing: try #require(rows[0].last))
        for member in signed.json.members { #expect(stored[member.key] == member.value, "\(member.key)") }
        #expect(stored.objectValue?.count == signed.json.count)
        let storedRefusal = try JSONValue(parsing: try #require(rows[1].last))
        #expect(storedRefusal["code"] == .number("-32003"))
        #expect(storedRefusal["method"] == .string("eth_\u{FFFD}sign"))
        let jsonQuery = try await server.psql(
            "SELECT record->>'outcome', record->'accounts'->>0 FROM signerkit_audit WHERE call = 0 ORDER BY id LIMIT 1",
            database: database)
        #expect(jsonQuery == "ok|\(signed.accounts[0].checksummed)\n")
    }
}
