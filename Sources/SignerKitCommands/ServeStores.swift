import EthereumPrimitives
import Secp256k1
import SignerKit
import SignerKitPostgres
import SignerKitSQLite
import SignerKitService

/// The state of `signerkit serve` in its configured ``ServiceStore``: the transaction journal, the idempotency
/// store, the quotas' counts and, with PostgreSQL, the audit rows (beside the `auditLog` file when one is configured too).
struct ServeStores: Sendable {
    let journal: any TransactionJournal
    let idempotency: any IdempotencyStore
    let auditTrail: (any AuditTrail)?
    /// The counts of quotas (the Ronin sponsor quota of the policy file).
    let usage: any UsageCounterStore
    /// Calls held for approval (the policy file's `approvalRules`).
    let held: any HeldRequestStore
    /// The SQLite database, when the store is one (`nil` for PostgreSQL).
    var sqlitePath: String?

    /// The instance lock of an SQLite store (`nil` for PostgreSQL, which several instances share).
    ///
    /// - Throws: 65 when another instance serves the store.
    func lockInstance() throws(CommandFailure) -> SQLiteInstanceLock? {
        guard let sqlitePath else { return nil }
        do { return try SQLiteInstanceLock(databasePath: sqlitePath) } catch {
            throw .invalidInput("configuration: store.sqlite: \(error)")
        }
    }

    /// Frees the nonce reservations killed runs left in an SQLite store (its instance lock held, before serving);
    /// the log line saying how many (`nil` when there were none).
    func releaseReservationsOfEarlierRuns() async -> String? {
        guard let journal = journal as? SQLiteTransactionJournal else { return nil }
        let result: Result<Int, any Error>
        do { result = .success(try await journal.releaseAllReservations()) } catch { result = .failure(error) }
        return Self.logLine("nonce reservations of earlier runs", result)
    }

    /// Ends the idempotency claims killed runs left in an SQLite store (its instance lock held, its journal swept
    /// completely, before serving): a retry of such a key then runs — re-sending its journalled transaction,
    /// never signing a new one — instead of being told 409 until the claim's lease lapses. The log line saying
    /// how many (`nil` when there were none).
    func releaseClaimsOfEarlierRuns() async -> String? {
        guard let store = idempotency as? SQLiteIdempotencyStore else { return nil }
        let result: Result<Int, any Error>
        do { result = .success(try await store.releaseOpenClaims()) } catch { result = .failure(error) }
        return Self.logLine("idempotency claims of earlier runs", result)
    }

    /// As a recovery sweep begins: notes, in a PostgreSQL store, the instances whose claims are open but whose
    /// session is gone (killed, or cut off from the database). The log line of a failure (`nil` otherwise).
    func noteStoppedInstances() async -> String? {
        guard let store = idempotency as? PostgresIdempotencyStore else { return nil }
        do { try await store.recoveryStarting() } catch {
            return Self.logLine("idempotency claims of stopped instances", .failure(error))
        }
        return nil
    }

    /// Once that sweep completed, the open claims of those instances may be taken over: a retry of such a key
    /// runs — re-sending its journalled transaction, never signing a new one — instead of being told 409 until
    /// the claim's lease lapses. The log line saying for how many instances (`nil` when none).
    func handOverClaimsOfStoppedInstances(after outcome: Result<JournalRecovery.Report, JournalError>) -> String? {
        guard let store = idempotency as? PostgresIdempotencyStore else { return nil }
        let complete = if case .success(let report) = outcome { report.isComplete } else { false }
        let instances = store.recoveryFinished(complete: complete)
        return Self.logLine("idempotency claims of stopped instances", .success(instances), counting: "instances")
    }

    /// Opens the stores of `configuration` (errors name the member of the configuration).
    ///
    /// With `ledger`, the audit records are a ledger wherever they are kept: the `auditLog` file and the
    /// PostgreSQL store each keep one, and with the SQLite store and no `auditLog` the SQLite file does.
    static func open(
        _ configuration: ServiceConfiguration, ledger: AuditLedgerSettings? = nil, allowInsecure: Bool
    ) async throws(CommandFailure) -> ServeStores {
        var trails: [any AuditTrail] = []
        let journal: any TransactionJournal
        let idempotency: any IdempotencyStore
        let usage: any UsageCounterStore
        let held: any HeldRequestStore
        switch configuration.store {
        case .sqlite(let path):
            do { journal = try SQLiteTransactionJournal(path: path) } catch {
                throw .invalidInput("configuration: store.sqlite: \(error)")
            }
            do { idempotency = try SQLiteIdempotencyStore(path: path) } catch {
                throw .invalidInput("configuration: store.sqlite: \(error)")
            }
            do { usage = try SQLiteUsageCounterStore(path: path) } catch {
                throw .invalidInput("configuration: store.sqlite: \(error)")
            }
            do { held = try SQLiteHeldRequestStore(path: path) } catch {
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
            do { usage = try await PostgresUsageCounterStore(configuration: postgres) } catch {
                throw .invalidInput("configuration: store.postgres: \(error)")
            }
            do { held = try await PostgresHeldRequestStore(configuration: postgres) } catch {
                throw .invalidInput("configuration: store.postgres: \(error)")
            }
            do { trails.append(try await PostgresAuditTrail(configuration: postgres, ledger: ledger)) } catch {
                throw .invalidInput("configuration: store.postgres: \(error)")
            }
        }
        if case .sqlite(let path) = configuration.store, let ledger, configuration.auditLog == nil {
            do { trails.append(try SQLiteAuditTrail(path: path, ledger: ledger)) } catch {
                throw .invalidInput("configuration: store.sqlite: \(error)")
            }
        }
        if let path = configuration.auditLog {
            do { trails.append(try AuditLog(path: path, ledger: ledger)) } catch {
                throw .invalidInput("configuration: \(error)")
            }
        }
        let trail: (any AuditTrail)? =
            switch trails.count {
            case 0: nil
            case 1: trails[0]
            default: AuditTrails(trails)
            }
        var sqlitePath: String?
        if case .sqlite(let path) = configuration.store { sqlitePath = path }
        return ServeStores(
            journal: journal, idempotency: idempotency, auditTrail: trail, usage: usage, held: held,
            sqlitePath: sqlitePath)
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

extension ServeStores {
    /// The log line of a release: how many were released (or the `counting` member; `nil` for none), or why it
    /// failed.
    static func logLine(_ message: String, _ result: Result<Int, any Error>, counting: String = "released")
        -> String?
    {
        var members: [JSONObject.Member] = [.init(key: "msg", value: .string(message))]
        switch result {
        case .success(0): return nil
        case .success(let released):
            members += [
                .init(key: "level", value: .string("info")),
                .init(key: counting, value: .number(String(released))),
            ]
        case .failure(let error):
            members += [
                .init(key: "level", value: .string("error")),
                .init(key: "problem", value: .string(EchoedText.abbreviated("\(error)"))),
            ]
        }
        return JSONValue.object(JSONObject(members: members)).serialized
    }
}
