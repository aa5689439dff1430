import SecureMemory

/// Where the PostgreSQL stores connect, as whom, and how long any wait may last.
///
/// The password stays in the ``SecureBytes`` the caller read from a file (copies of the configuration share
/// it; it is wiped when the last one goes). It is copied only into a wiped scratch buffer while a connection
/// is made, and libpq's copy inside the connection is zeroed when the connection is closed. ``description``
/// never shows it, and no error does.
public struct PostgresConfiguration: Sendable, CustomStringConvertible {
    /// The server's host name or address, or the directory of its Unix-domain socket (starting with `/`).
    public var host: String
    /// The server's port.
    public var port: UInt16
    /// The database.
    public var database: String
    /// The role to log in as.
    public var user: String
    /// libpq's `sslmode` (`disable`, `prefer`, `require`, `verify-ca`, `verify-full`); use `verify-full` for a
    /// server across a network.
    public var sslMode: String
    /// The bound on every wait on the server: `statement_timeout`, `lock_timeout` and
    /// `idle_in_transaction_session_timeout` of each session. The stores give up on a server that has not
    /// answered a statement within this plus ``connectTimeout``, and close that connection.
    public var timeout: Duration
    /// libpq's `connect_timeout` (whole seconds, rounded up; libpq waits at least 2 s).
    public var connectTimeout: Duration
    /// How many connections each store keeps at most.
    public var poolSize: Int
    /// The password (never shown).
    let password: SecureBytes

    /// A configuration; `password` is the secret the caller read from a file.
    public init(
        host: String, port: UInt16 = 5432, database: String, user: String, password: SecureBytes,
        sslMode: String = "prefer", timeout: Duration = .seconds(5), connectTimeout: Duration = .seconds(5),
        poolSize: Int = 4
    ) {
        self.host = host
        self.port = port
        self.database = database
        self.user = user
        self.password = password
        self.sslMode = sslMode
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.poolSize = poolSize
    }

    /// `host:port/database`, the server named in every error.
    public var endpoint: String { "\(host):\(port)/\(database)" }

    /// `postgresql://user@host:port/database` (no password).
    public var description: String { "postgresql://\(user)@\(endpoint)" }
}
