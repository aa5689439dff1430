/// A failed PostgreSQL call: the server (`host:port/database`), what failed, and the server's primary message
/// or libpq's (never a password, never a parameter's value).
struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// `host:port/database`.
    let endpoint: String
    /// What went wrong.
    let message: String
    /// The server's SQLSTATE, when it answered with an error.
    let sqlState: String?

    /// An error at `endpoint`.
    init(endpoint: String, message: String, sqlState: String? = nil) {
        self.endpoint = endpoint
        self.message = message
        self.sqlState = sqlState
    }

    /// `host:port/database: message (SQLSTATE xxxxx)`.
    var description: String {
        "\(endpoint): \(message)" + (sqlState.map { " (SQLSTATE \($0))" } ?? "")
    }
}
