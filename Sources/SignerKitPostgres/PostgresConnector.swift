import CPostgreSQL
import SecureMemory
import SignerKitSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opens libpq connections with `PQconnectdbParams`: keyword and value arrays, never a connection string
/// (the password is never part of a text that could be logged or parsed), and session settings that bound
/// every wait on the server.
enum PostgresConnector {
    /// A connection in non-blocking mode, with `statement_timeout`, `lock_timeout` and
    /// `idle_in_transaction_session_timeout` set to the configuration's timeout.
    ///
    /// - Throws: ``PostgresError`` with libpq's message (it names the server, never the password).
    static func connect(_ configuration: PostgresConfiguration) throws(PostgresError) -> OpaquePointer {
        let bound = String(configuration.timeout.millisecondsRoundedUp)
        let settings: [(String, String)] = [
            ("host", configuration.host), ("port", String(configuration.port)), ("dbname", configuration.database),
            ("user", configuration.user), ("sslmode", configuration.sslMode),
            ("connect_timeout", String((configuration.connectTimeout.millisecondsRoundedUp + 999) / 1000)),
            ("application_name", "signerkit"), ("client_encoding", "UTF8"),
            ("options", sessionOptions(bound: bound)),
            // A peer that vanished without closing is noticed: keepalives, and unacknowledged data gives up.
            ("keepalives", "1"), ("keepalives_idle", "10"), ("keepalives_interval", "5"), ("keepalives_count", "3"),
            ("tcp_user_timeout", String((configuration.timeout + configuration.connectTimeout).millisecondsRoundedUp)),
        ]
        let connection = withPassword(configuration.password) { password in
            withCStrings(settings.map(\.0) + (password == nil ? [] : ["password"])) { keywords in
                withCStrings(settings.map(\.1)) { values -> OpaquePointer? in
                    // Both lists end with a null pointer.
                    guard let keywords, let values else { return nil }
                    let allKeywords = keywords.map { Optional(UnsafePointer($0)) } + [nil]
                    let allValues = values.map { Optional(UnsafePointer($0)) } + (password.map { [$0] } ?? []) + [nil]
                    return PQconnectdbParams(allKeywords, allValues, 0)
                }
            }
        }
        guard let connection else {
            throw PostgresError(endpoint: configuration.endpoint, message: "libpq is out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = PostgresConnection.oneLine(
                PQerrorMessage(connection).map { String(cString: $0) } ?? "connection failed")
            PQfinish(connection)
            throw PostgresError(endpoint: configuration.endpoint, message: message)
        }
        guard PQsetnonblocking(connection, 1) == 0 else {
            PQfinish(connection)
            throw PostgresError(endpoint: configuration.endpoint, message: "cannot make the connection non-blocking")
        }
        return connection
    }

    /// The session settings (libpq's `options`): every wait on the server bounded by `bound` milliseconds,
    /// and no notices (libpq would print them on standard error).
    private static func sessionOptions(bound: String) -> String {
        ["statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout"].map { "-c \($0)=\(bound)" }
            .joined(separator: " ") + " -c client_min_messages=warning"
    }

    /// Calls `body` with the password as a C string in a scratch buffer of secure memory, wiped when it
    /// returns (`nil` for an empty password: libpq then looks where it always does, `PGPASSWORD` and the
    /// password file).
    private static func withPassword<T>(_ password: SecureBytes, _ body: (UnsafePointer<CChar>?) -> T) -> T {
        guard password.count > 0 else { return body(nil) }
        let scratch = SecureBytes(count: password.count + 1) { (buffer: UnsafeMutableRawBufferPointer) in
            password.withUnsafeBytes { source in
                if let base = source.baseAddress {
                    buffer.baseAddress?.copyMemory(from: base, byteCount: source.count)
                }
            }
        }
        return scratch.withUnsafeBytes { buffer in
            body(buffer.baseAddress.map { UnsafePointer($0.assumingMemoryBound(to: CChar.self)) })
        }
    }

    /// Calls `body` with C copies of `strings` (not secrets), freed when it returns; `nil` when memory ran out.
    private static func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>]?) -> T) -> T {
        let copies = strings.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        let complete = copies.compactMap { $0 }
        return body(complete.count == strings.count ? complete : nil)
    }
}
