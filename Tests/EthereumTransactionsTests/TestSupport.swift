import EthereumPrimitives
import EthereumTransactions
import Foundation
import SignerKitTestSupport
import Testing

/// One row of `Fixtures/transactions.jsonl`.
struct TransactionVector: Sendable, CustomTestStringConvertible {
    let name: String
    let type: String
    let tags: [String]
    let tx: JSONValue
    /// `nil` for pre-EIP-155 rows.
    let chainId: UInt256?
    let privateKey: String
    let rawTransaction: String
    let hash: String
    let sender: String

    var testDescription: String { name }

    init(_ row: JSONValue) throws {
        name = try row.vectorString("name")
        type = try row.vectorString("type")
        tags = (row["tags"]?.arrayValue ?? []).compactMap(\.stringValue)
        guard let tx = row["tx"], tx.objectValue != nil else { throw FixtureError.badRow("tx") }
        self.tx = tx
        if let text = row["chainId"]?.stringValue {
            chainId = try UInt256(text: text)
        } else {
            chainId = nil
        }
        privateKey = try row.vectorString("privateKey")
        rawTransaction = try row.vectorString("rawTransaction")
        hash = try row.vectorString("hash")
        sender = try row.vectorString("sender")
    }
}

enum FixtureError: Error {
    case missing(String)
    case badRow(String)
}

enum Fixtures {
    /// The rows of `transactions.jsonl`, loaded once.
    static let transactions: [TransactionVector] = (try? loadTransactions()) ?? []

    static func loadTransactions() throws -> [TransactionVector] {
        try Vectors.rows("transactions.jsonl").map(TransactionVector.init)
    }
}

/// Decodes test hex, recording an issue instead of throwing.
func hexBytes(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8] {
    do {
        return try Hex.decode(text)
    } catch {
        Issue.record("bad hex in test: \(text)", sourceLocation: sourceLocation)
        return []
    }
}

/// Parses JSON written in a test.
func json(_ text: String) throws -> JSONValue {
    try JSONValue(parsing: text)
}

/// The error a throwing call raised, or `nil` if it succeeded.
func transactionError<T>(_ body: () throws(TransactionError) -> T) -> TransactionError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// The error `TransactionRequest(json:)` raises for the JSON text, or `nil`.
func requestError(_ text: String) throws -> TransactionError? {
    let value = try json(text)
    return transactionError { () throws(TransactionError) in try TransactionRequest(json: value) }
}

/// The error decoding the raw bytes raises, or `nil`.
func decodeError(_ raw: [UInt8]) -> TransactionError? {
    transactionError { () throws(TransactionError) in try SignedTransaction.decode(raw: raw) }
}
