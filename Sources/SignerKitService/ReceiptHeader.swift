import EthereumPrimitives
import SignerKit
import SignerKitHTTPServer

/// The receipts of an answer in a response header: a request sent with `SignerKit-Receipt: request` gets
/// `SignerKit-Receipt: <base64url of the JSON array of its records' receipts>` (what `signerkit_receipt` answers
/// for its `X-Request-Id`), each proving inclusion in a checkpoint signed for it if none covered it yet. A batch
/// whose receipts would make the header longer than ``maximumLength`` gets `SignerKit-Receipt: omitted` (ask
/// `signerkit_receipt`), and a ledger that cannot answer `SignerKit-Receipt: unavailable`.
enum ReceiptHeader {
    /// The header's name, in the request and in the response.
    static let name = "SignerKit-Receipt"
    /// The longest value sent (16 KiB: clients and proxies limit header sizes).
    static let maximumLength = 16 * 1024

    /// Whether the request asks for its receipts (`SignerKit-Receipt: request`).
    static func isRequested(_ request: HTTPServerRequest) -> Bool {
        request.values(name.lowercased()).contains { $0.trimmingCharacters(in: .whitespaces) == "request" }
    }

    /// The header field carrying the receipts of request `requestID`'s records.
    static func field(for requestID: String, in ledger: any AuditLedger) async -> (String, String) {
        guard let receipts = try? await ledger.receipts(requestID: requestID) else { return (name, "unavailable") }
        let json = JSONValue.array(receipts.map { .object($0.json) }).serialized
        let value = Base64URL.encode(Array(json.utf8))
        return (name, value.utf8.count <= maximumLength ? value : "omitted")
    }
}
