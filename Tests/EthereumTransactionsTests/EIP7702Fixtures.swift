import EthereumPrimitives
import EthereumTransactions
import SignerKitTestSupport
import Testing

/// One row of the vector file `eip7702_authorizations.jsonl`.
struct AuthorizationVector: Sendable, CustomTestStringConvertible {
    let name: String
    let authorization: JSONValue
    let privateKey: String
    let authority: String
    let authorizationHash: String
    let yParity: String
    let r: String
    let s: String

    var testDescription: String { name }

    init(_ row: JSONValue) throws {
        name = try row.vectorString("name")
        guard let authorization = row["authorization"], authorization.objectValue != nil else {
            throw FixtureError.badRow("authorization")
        }
        self.authorization = authorization
        privateKey = try row.vectorString("privateKey")
        authority = try row.vectorString("authority")
        authorizationHash = try row.vectorString("authorizationHash")
        yParity = try row.vectorString("yParity")
        r = try row.vectorString("r")
        s = try row.vectorString("s")
    }
}

/// One row of the vector file `transactions_type4.jsonl`.
struct SetCodeTransactionVector: Sendable, CustomTestStringConvertible {
    let name: String
    let tx: JSONValue
    let privateKey: String
    let rawTransaction: String
    let hash: String
    let sender: String
    let authorities: [String]

    var testDescription: String { name }

    init(_ row: JSONValue) throws {
        name = try row.vectorString("name")
        guard let tx = row["tx"], tx.objectValue != nil else { throw FixtureError.badRow("tx") }
        self.tx = tx
        privateKey = try row.vectorString("privateKey")
        rawTransaction = try row.vectorString("rawTransaction")
        hash = try row.vectorString("hash")
        sender = try row.vectorString("sender")
        authorities = (row["authorities"]?.arrayValue ?? []).compactMap(\.stringValue)
    }
}

enum EIP7702Fixtures {
    /// The rows of `eip7702_authorizations.jsonl`, loaded once.
    static let authorizations: [AuthorizationVector] =
        (try? load("eip7702_authorizations", AuthorizationVector.init)) ?? []
    /// The rows of `transactions_type4.jsonl`, loaded once.
    static let transactions: [SetCodeTransactionVector] =
        (try? load("transactions_type4", SetCodeTransactionVector.init)) ?? []

    static func load<Row>(_ name: String, _ make: (JSONValue) throws -> Row) throws -> [Row] {
        try Vectors.rows("\(name).jsonl").map(make)
    }
}
