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

    init(_ json: ConfigurationReader, folder: String) throws(ServiceConfigurationError) {
        try json.object(allowing: ["sqlite", "postgres"])
        switch (json["sqlite"].ifPresent, json["postgres"].ifPresent) {
        case (let file?, nil): self = .sqlite(try file.filePath(relativeTo: folder))
        case (nil, let server?): self = .postgres(try ServicePostgresStore(server, folder: folder))
        default: throw json.fail("expected exactly one of sqlite or postgres")
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

    init(_ json: ConfigurationReader, folder: String) throws(ServiceConfigurationError) {
        try json.object(allowing: [
            "host", "port", "database", "user", "passwordFile", "sslMode", "timeoutMs", "poolSize",
        ])
        host = try json["host"].string()
        guard !host.isEmpty else { throw json["host"].fail("empty") }
        port = UInt16(try json["port"].ifPresent?.integer(in: 1...65_535) ?? 5432)
        database = try json["database"].string()
        user = try json["user"].string()
        for (name, value) in [("database", database), ("user", user)] where value.isEmpty {
            throw json[name].fail("empty")
        }
        passwordFile = try json["passwordFile"].filePath(relativeTo: folder)
        sslMode = try json["sslMode"].ifPresent?.string() ?? "verify-full"
        guard Self.sslModes.contains(sslMode) else {
            throw json["sslMode"].fail(
                "\(EchoedText.abbreviated(sslMode).debugDescription) is not one of "
                    + Self.sslModes.joined(separator: ", "))
        }
        let local = host.hasPrefix("/") || host == "localhost" || host.hasPrefix("127.") || host == "::1"
        guard local || !["disable", "allow", "prefer"].contains(sslMode) else {
            throw json["sslMode"].fail(
                "\(sslMode) may send the password unencrypted; a server that is not on loopback needs "
                    + "require, verify-ca or verify-full")
        }
        timeout = .milliseconds(try json["timeoutMs"].ifPresent?.integer(in: 100...600_000) ?? 5_000)
        poolSize = try json["poolSize"].ifPresent?.integer(in: 1...256) ?? 4
    }
}
