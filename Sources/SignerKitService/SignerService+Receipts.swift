import EthereumPrimitives
import SignerKit

extension SignerService {
    /// The ledger among the audit trails (the first, when there are several), if the service keeps one.
    var ledger: (any AuditLedger)? { AuditTrails.ledgers(in: audit).first }

    /// `signerkit_receipt`: `[requestId]` (the `X-Request-Id` of an answer) → the receipts of its records, one
    /// per call; `[{"leaf": N, "treeSize"?: S}]` → the receipt of record N, for the checkpoint of size S when
    /// given. A client gets receipts of its own records only.
    func receipt(_ call: ServiceCall, client: ServiceClient) async -> Result<JSONValue, JSONRPCError> {
        guard let ledger else {
            return .failure(.methodNotFound(call.method, "the service keeps no audit ledger (configure \"ledger\")"))
        }
        let usage = "expected [requestId] or [{\"leaf\": N, \"treeSize\"?: S}]"
        guard call.params.count == 1 else { return .failure(.invalidParams(usage)) }
        do {
            switch call.params[0] {
            case .string(let requestID):
                guard requestID.utf8.count <= 64 else { return .failure(.invalidParams("params[0]: too long")) }
                let receipts = try await ledger.receipts(requestID: requestID)
                guard receipts.allSatisfy({ Self.isOwn($0, client) }) else {
                    return .failure(.invalidParams(AuditLedgerError.unknownRequest(requestID).description))
                }
                return .success(.array(receipts.map { .object($0.json) }))
            case .object(let options):
                guard options.keys.allSatisfy({ $0 == "leaf" || $0 == "treeSize" }),
                    let leaf = Self.count(options["leaf"])
                else { return .failure(.invalidParams("params[0]: \(usage)")) }
                var treeSize: Int?
                if let size = options["treeSize"] {
                    guard let parsed = Self.count(size) else {
                        return .failure(.invalidParams("params[0].treeSize: expected a whole number ≥ 0"))
                    }
                    treeSize = parsed
                }
                let receipt = try await ledger.receipt(leaf: leaf, treeSize: treeSize)
                guard Self.isOwn(receipt, client) else {
                    return .failure(.invalidParams("params[0].leaf: record \(leaf) is not one of this client's"))
                }
                return .success(.object(receipt.json))
            default:
                return .failure(.invalidParams(usage))
            }
        } catch {
            switch error {
            case .unknownRequest, .unknownLeaf, .unknownCheckpoint: return .failure(.invalidParams(error.description))
            case .checkpoint, .store: return .failure(JSONRPCError(code: -32603, message: error.description))
            }
        }
    }

    /// Whether the receipt's record is of `client`'s call.
    private static func isOwn(_ receipt: LedgerReceipt, _ client: ServiceClient) -> Bool {
        (try? LedgerEntry(parsing: receipt.entry))?.object["client"]?.stringValue == client.name
    }

    /// A whole number ≥ 0 from JSON.
    private static func count(_ value: JSONValue?) -> Int? {
        guard case .number(let text)? = value, let number = Int(text), number >= 0 else { return nil }
        return number
    }
}
