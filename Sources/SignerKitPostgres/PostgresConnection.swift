import CPostgreSQL
import Dispatch
import SecureMemory
import SignerKitSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One libpq connection, used only on its own serial queue (``PostgresDatabase`` lends it to one caller at a
/// time). Opened on first use; every statement is sent with `PQsendQueryParams` (binary results) and awaited
/// with poll(2) against a deadline, so no call waits for ever; a connection found broken, or one whose
/// server did not answer in time, is closed, and the next statement opens a new one.
final class PostgresConnection: @unchecked Sendable {
    // @unchecked Sendable: `handle` is read and written only on `queue`, by one caller at a time.
    /// The queue every call runs on.
    let queue: DispatchQueue
    private let configuration: PostgresConfiguration
    private var handle: OpaquePointer?

    /// A connection to the server of `configuration`, not yet opened.
    init(configuration: PostgresConfiguration, label: String) {
        self.configuration = configuration
        queue = DispatchQueue(label: label)
    }

    deinit { close() }

    /// `host:port/database`, for errors.
    var endpoint: String { configuration.endpoint }

    /// Runs `body` between `BEGIN` and `COMMIT`; rolls back and rethrows when it throws.
    ///
    /// An open connection that broke while idle (a restarted server, a terminated backend, one that stopped
    /// answering) fails at `BEGIN`, before anything was done: `BEGIN` is then tried once more, on a new
    /// connection.
    func transaction<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(PostgresError) -> T {
        let wasOpen = handle != nil
        do { try execute("BEGIN") } catch {
            guard wasOpen, handle == nil else { throw error }
            try execute("BEGIN")
        }
        let value: T
        do { value = try body(self) } catch {
            if handle != nil { _ = try? execute("ROLLBACK") }
            throw error
        }
        try execute("COMMIT")
        return value
    }

    /// Runs one statement with `parameters` bound to `$1`, `$2`, …
    @discardableResult
    func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> PostgresResult {
        let connection = try open()
        let deadline = ContinuousClock.now.advanced(by: configuration.timeout + configuration.connectTimeout)
        do {
            try send(sql, parameters, on: connection, until: deadline)
            return try awaitResult(on: connection, until: deadline)
        } catch {
            if handle != nil, PQstatus(connection) != CONNECTION_OK { close() }
            throw error
        }
    }

    /// The rows of one statement.
    func query(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> [PostgresRow] {
        try execute(sql, parameters).rows
    }

    /// The open connection, opening one when there is none.
    private func open() throws(PostgresError) -> OpaquePointer {
        if let handle { return handle }
        let connection = try PostgresConnector.connect(configuration)
        handle = connection
        return connection
    }

    /// Closes the connection (libpq zeroes its copy of the password); the next statement opens a new one.
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Sends the statement and flushes it.
    private func send(
        _ sql: String, _ parameters: [PostgresValue], on connection: OpaquePointer,
        until deadline: ContinuousClock.Instant
    ) throws(PostgresError) {
        var types: [Oid] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        // libpq copies the values into its output buffer before PQsendQueryParams returns.
        defer { for buffer in buffers { buffer?.deallocate() } }
        for parameter in parameters {
            let buffer: UnsafeMutablePointer<CChar>?
            let (type, length, format): (Oid, Int32, Int32)
            switch parameter {
            case .text(let text):
                // A text value travels NUL-terminated: a NUL inside would cut it short.
                guard !text.utf8.contains(0) else { throw failure("a text parameter holds a NUL character") }
                buffer = Self.copy(Array(text.utf8) + [0])
                (type, length, format) = (0, 0, 0)
            case .bytes(let bytes):
                guard let count = Int32(exactly: bytes.count) else { throw failure("a parameter is too large") }
                buffer = Self.copy(bytes)
                (type, length, format) = (Self.byteaType, count, 1)
            case .null:
                buffer = nil
                (type, length, format) = (0, 0, 0)
            }
            buffers.append(buffer)
            types.append(type)
            lengths.append(length)
            formats.append(format)
        }
        let values = buffers.map { $0.map { UnsafePointer($0) } }
        guard PQsendQueryParams(connection, sql, Int32(parameters.count), types, values, lengths, formats, 1) == 1
        else { throw connectionFailure(connection) }
        while true {
            let flushed = PQflush(connection)
            if flushed == 0 { return }
            guard flushed > 0 else { throw connectionFailure(connection) }
            let events = try wait(for: Int16(POLLIN | POLLOUT), on: connection, until: deadline)
            if events & Int16(POLLIN) != 0, PQconsumeInput(connection) == 0 { throw connectionFailure(connection) }
        }
    }

    /// Reads every result of the statement sent; the last one, or the first error.
    private func awaitResult(on connection: OpaquePointer, until deadline: ContinuousClock.Instant)
        throws(PostgresError) -> PostgresResult
    {
        var last = PostgresResult(rows: [], affected: 0)
        var firstError: PostgresError?
        while true {
            while PQisBusy(connection) != 0 {
                _ = try wait(for: Int16(POLLIN), on: connection, until: deadline)
                guard PQconsumeInput(connection) != 0 else { throw connectionFailure(connection) }
            }
            guard let result = PQgetResult(connection) else { break }
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK: last = Self.decode(result)
            default: firstError = firstError ?? serverFailure(result)
            }
        }
        if let firstError { throw firstError }
        return last
    }

    /// Waits until the socket is ready for `events`; past `deadline` (or when poll(2) fails) the connection is
    /// closed and this throws.
    private func wait(for events: Int16, on connection: OpaquePointer, until deadline: ContinuousClock.Instant)
        throws(PostgresError) -> Int16
    {
        let socket = PQsocket(connection)
        guard socket >= 0 else { throw connectionFailure(connection) }
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                close()
                throw failure(
                    "no answer within \(configuration.timeout + configuration.connectTimeout): connection closed")
            }
            var request = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&request, 1, Int32(clamping: remaining.millisecondsRoundedUp))
            if ready > 0 { return request.revents }
            if ready < 0, errno != EINTR {
                let reason = String(cString: strerror(errno))
                close()
                throw failure("poll: \(reason)")
            }
        }
    }

    /// The server's primary message and SQLSTATE of a failed result.
    private func serverFailure(_ result: OpaquePointer) -> PostgresError {
        let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let message = primary ?? Self.oneLine(PQresultErrorMessage(result).map { String(cString: $0) } ?? "")
        return PostgresError(endpoint: configuration.endpoint, message: message, sqlState: state)
    }

    /// libpq's message for a failure of the connection itself.
    private func connectionFailure(_ connection: OpaquePointer) -> PostgresError {
        failure(Self.oneLine(PQerrorMessage(connection).map { String(cString: $0) } ?? "connection failed"))
    }

    /// An error at this connection's server.
    private func failure(_ message: String) -> PostgresError {
        PostgresError(endpoint: configuration.endpoint, message: message)
    }

    /// The rows (binary columns) and changed-row count of a successful result.
    private static func decode(_ result: OpaquePointer) -> PostgresResult {
        let rowCount = PQntuples(result)
        let columnCount = PQnfields(result)
        var rows: [PostgresRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var columns: [[UInt8]?] = []
            for column in 0..<columnCount {
                guard PQgetisnull(result, row, column) == 0 else {
                    columns.append(nil)
                    continue
                }
                let count = Int(PQgetlength(result, row, column))
                guard count > 0, let value = PQgetvalue(result, row, column) else {
                    columns.append([])
                    continue
                }
                columns.append(Array(UnsafeRawBufferPointer(start: value, count: count)))
            }
            rows.append(PostgresRow(columns: columns))
        }
        let affected = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
        return PostgresResult(rows: rows, affected: affected)
    }

    /// A fresh C buffer holding `bytes` (never a null pointer, so an empty `bytea` is not NULL).
    private static func copy(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar> {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress {
                UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: source.count)
            }
        }
        return buffer
    }

    /// A libpq message on one line.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: "; ")
    }

    /// The OID of `bytea`.
    private static let byteaType: Oid = 17
}
