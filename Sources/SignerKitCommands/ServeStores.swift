import Secp256k1
import SignerKit
import SignerKitPostgres
import SignerKitSQLite
import SignerKitService

/// The state of `signerkit serve` in its configured ``ServiceStore``: the transaction journal, the idempotency
/// store and, with PostgreSQL, the audit rows (beside the `auditLog` file when one is configured too).
struct ServeStores {
    let journal: any TransactionJournal
    let idempotency: any IdempotencyStore
    let auditTrail: (any AuditTrail)?

    /// Opens the stores of `configuration` (errors name the member of the configuration).
    static func open(_ configuration: ServiceConfiguration, allowInsecure: Bool) async throws(CommandFailure)
        -> ServeStores
    {
        var trails: [any AuditTrail] = []
        let journal: any TransactionJournal
        let idempotency: any IdempotencyStore
        switch configuration.store {
        case .sqlite(let path):
            do { journal = try SQLiteTransactionJournal(path: path) } catch {
                throw .invalidInput("configuration: store.sqlite: \(error)")
            }
            do { idempotency = try SQLiteIdempotencyStore(path: path) } catch {
                throw .invalidInput("configuration: store.sqlite: \(error)")
            }
        case .postgres(let server):
            let postgres = try postgresConfiguration(server, allowInsecure: allowInsecure)
            do { journal = try await PostgresTransactionJournal(configuration: postgres) } catch {
                throw .invalidInput("configuration: store.postgres: \(error)")
            }
            do { idempotency = try await PostgresIdempotencyStore(configuration: postgres) } catch {
                throw .invalidInput("configuration: store.postgres: \(error)")
            }
            do { trails.append(try await PostgresAuditTrail(configuration: postgres)) } catch {
                throw .invalidInput("configuration: store.postgres: \(error)")
            }
        }
        if let path = configuration.auditLog {
            do { trails.append(try AuditLog(path: path)) } catch { throw .invalidInput("configuration: \(error)") }
        }
        let trail: (any AuditTrail)? =
            switch trails.count {
            case 0: nil
            case 1: trails[0]
            default: AuditTrails(trails)
            }
        return ServeStores(journal: journal, idempotency: idempotency, auditTrail: trail)
    }

    /// The libpq settings of `server`, with the password read from its file into secure memory.
    static func postgresConfiguration(_ server: ServicePostgresStore, allowInsecure: Bool) throws(CommandFailure)
        -> PostgresConfiguration
    {
        let password: SecureBytes
        do { password = try PasswordOptions.password(file: server.passwordFile, allowInsecure: allowInsecure) } catch {
            throw .invalidInput("configuration: store.postgres.passwordFile: \(error.message)")
        }
        return PostgresConfiguration(
            host: server.host, port: server.port, database: server.database, user: server.user, password: password,
            sslMode: server.sslMode, timeout: server.timeout, poolSize: server.poolSize)
    }
}
