import EthereumPrimitives
import SignerKit
import SignerKitPostgres
import SignerKitSQLite
import SignerKitService

/// The ledger a service configuration keeps, read for `signerkit audit verify --store CONFIG`: its `auditLog`
/// file when the store is SQLite and a file is configured (the file is then the ledger), otherwise the
/// store's ledger tables (SQLite or PostgreSQL).
enum AuditStoreLedger {
    /// Verifies the ledger of the configuration at `configurationPath`.
    ///
    /// - Throws: ``LedgerVerificationError`` for the first record or checkpoint that does not hold;
    ///   ``CommandFailure`` (65) when the configuration or the store cannot be read.
    static func verify(
        configurationPath: String, key: Address, outsideCheckpoint: String?, allowInsecure: Bool
    ) async throws -> LedgerVerifier.Summary {
        let configuration: ServiceConfiguration
        do { configuration = try ServiceConfiguration.load(path: configurationPath) } catch {
            throw CommandFailure.invalidInput("--store: \(TextSafety.displayArgument(configurationPath)): \(error)")
        }
        let contents: (records: [String], checkpoints: [String])
        switch configuration.store {
        case .sqlite(let path):
            if let log = configuration.auditLog {
                return try LedgerVerifier.verify(
                    log: try FileAccess.readAll(log), key: key, outsideCheckpoint: outsideCheckpoint)
            }
            do { contents = try SQLiteAuditTrail.ledgerContents(path: path) } catch {
                throw CommandFailure.invalidInput("--store: store.sqlite: \(error)")
            }
        case .postgres(let server):
            let postgres = try ServeStores.postgresConfiguration(server, allowInsecure: allowInsecure)
            do { contents = try await PostgresAuditTrail.ledgerContents(configuration: postgres) } catch {
                throw CommandFailure.invalidInput("--store: store.postgres: \(error)")
            }
        }
        return try LedgerVerifier.verify(
            records: contents.records, checkpoints: contents.checkpoints, key: key, outsideCheckpoint: outsideCheckpoint
        )
    }
}
