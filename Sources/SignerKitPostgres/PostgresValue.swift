/// A statement parameter: text is sent as text for the server to read as the type its place needs (a cast
/// in the SQL, such as `$3::bigint`, decides where the place does not); bytes are sent in binary as `bytea`.
enum PostgresValue: Sendable {
    case text(String)
    case bytes([UInt8])
    case null
}

/// One result row, its columns in binary format (`bytea` and `text` as their bytes, `boolean` as one byte).
struct PostgresRow: Sendable {
    /// The columns; `nil` for NULL.
    let columns: [[UInt8]?]

    /// Column `index` as bytes (`nil` for NULL).
    func bytes(_ index: Int) -> [UInt8]? { columns[index] }

    /// Column `index` as UTF-8 text (`nil` for NULL).
    func text(_ index: Int) -> String? { columns[index].map { String(decoding: $0, as: UTF8.self) } }

    /// Column `index` as a boolean (`false` for NULL).
    func bool(_ index: Int) -> Bool { columns[index] == [1] }
}

/// What a statement gave back: its rows and how many rows it changed.
struct PostgresResult: Sendable {
    /// The rows (none for a statement without results).
    let rows: [PostgresRow]
    /// The rows inserted, updated or deleted (`PQcmdTuples`), 0 for other statements.
    let affected: Int
}
