import EthereumPrimitives
import SignerKit

/// Where the service keeps its state — the transaction journal (nonces, broadcasts), the answers of requests
/// sent with an idempotency key and, with PostgreSQL, the audit rows (`store`).
///
/// - `{"sqlite": P}` (the default, `journal.sqlite` beside the configuration; the older `"journal": P` means
///   the same): one instance survives restarts without a second send.
/// - `{"postgres": {"host": H, "port": N, "database": D, "user": U, "passwordFile": P, …}}`: several instances
///   behind a load balancer share one database (docs/SERVICE.md, "Running N instances").
public enum ServiceStore: Sendable, Equatable {
    /// An SQLite database file.
    case sqlite(String)
    /// A PostgreSQL database.
    case postgres(ServicePostgresStore)

    init(json: JSONValue, reader: ConfigurationReader) throws(ServiceConfigurationError) {
        let object = try reader.object(json, "store")
        try reader.onlyMembers(object, ["sqlite", "postgres"], "store")
        switch (object["sqlite"], object["postgres"]) {
        case (let file?, nil): self = .sqlite(try reader.path(file, "store.sqlite"))
        case (nil, let server?): self = .postgres(try ServicePostgresStore(json: server, reader: reader))
        default: throw .init(path: "store", problem: "expected exactly one of sqlite or postgres")
        }
    }
}

/// The PostgreSQL server of ``ServiceStore/postgres(_:)``; the password is read from a file, never written in the
/// configuration.
public struct ServicePostgresStore: Sendable, Equatable {
    /// The server's address or host name, or the directory of its Unix-domain socket (`host`).
    public var host: String
    /// The server's port (`port`, default 5432).
    public var port: UInt16
    /// The database (`database`).
    public var database: String
    /// The role to log in as (`user`).
    public var user: String
    /// The file holding the role's password (`passwordFile`, a secret file: owner-only).
    public var passwordFile: String
    /// libpq's `sslmode` (`sslMode`, default `verify-full`; `disable` is accepted for a server on loopback or a
    /// Unix-domain socket only).
    public var sslMode: String
    /// The bound on every statement and lock wait (`timeoutMs`, default 5,000).
    public var timeout: Duration
    /// Connections each store keeps at most (`poolSize`, default 4).
    public var poolSize: Int

    /// The `sslMode` values libpq accepts.
    public static let sslModes = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]

    init(json: JSONValue, reader: ConfigurationReader) throws(ServiceConfigurationError) {
        let path = "store.postgres"
        let object = try reader.object(json, path)
        try reader.onlyMembers(
            object, ["host", "port", "database", "user", "passwordFile", "sslMode", "timeoutMs", "poolSize"], path)
        host = try reader.string(object["host"], path + ".host")
        guard !host.isEmpty else { throw .init(path: path + ".host", problem: "empty") }
        port =
            try object["port"].map { (value) throws(ServiceConfigurationError) in
                UInt16(try reader.integer(value, path + ".port", in: 1...65_535))
            } ?? 5432
        database = try reader.string(object["database"], path + ".database")
        user = try reader.string(object["user"], path + ".user")
        for (name, value) in [("database", database), ("user", user)] where value.isEmpty {
            throw .init(path: "\(path).\(name)", problem: "empty")
        }
        passwordFile = try reader.path(object["passwordFile"], path + ".passwordFile")
        sslMode =
            try object["sslMode"].map { (value) throws(ServiceConfigurationError) in
                try reader.string(value, path + ".sslMode")
            } ?? "verify-full"
        guard Self.sslModes.contains(sslMode) else {
            throw .init(
                path: path + ".sslMode",
                problem: "\(EchoedText.abbreviated(sslMode).debugDescription) is not one of "
                    + Self.sslModes.joined(separator: ", "))
        }
        let local = host.hasPrefix("/") || host == "localhost" || host.hasPrefix("127.") || host == "::1"
        guard local || !["disable", "allow", "prefer"].contains(sslMode) else {
            throw .init(
                path: path + ".sslMode",
                problem: "\(sslMode) may send the password unencrypted; a server that is not on loopback needs "
                    + "require, verify-ca or verify-full")
        }
        timeout = .milliseconds(
            try object["timeoutMs"].map { (value) throws(ServiceConfigurationError) in
                try reader.integer(value, path + ".timeoutMs", in: 100...600_000)
            } ?? 5_000)
        poolSize =
            try object["poolSize"].map { (value) throws(ServiceConfigurationError) in
                try reader.integer(value, path + ".poolSize", in: 1...256)
            } ?? 4
    }
}
