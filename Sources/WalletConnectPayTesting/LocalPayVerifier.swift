import EIP712
import EthereumPrimitives
import Secp256k1
import SignerKit
import WalletConnectPay

/// Checks one confirm result against the action it answers and the option's account.
enum LocalPayVerifier {
    /// Why a result is refused (HTTP 422), or why it could not be checked (HTTP 500).
    enum Problem: Error {
        /// The result does not answer the action for this account.
        case invalid(String)
        /// The node could not be asked.
        case node(String)
    }

    /// Verifies `result` for `action`: a signature must recover `account`; a transaction hash must be
    /// 32 bytes and, with a node, name a transaction from `account` with the action's `to` and `data`.
    static func verify(
        _ result: String, answers action: WalletRpcAction, account: Address, node: (any EthereumNode)?
    ) async throws(Problem) {
        let params: [JSONValue]
        do {
            guard case .array(let array) = try JSONValue(parsing: action.params) else {
                throw Problem.invalid("bad params")
            }
            params = array
        } catch {
            throw .invalid("the action's params do not parse")
        }
        switch RpcMethod(rawValue: action.method) {
        case .signTypedDataV4?:
            guard params.count >= 2 else { throw .invalid("the action has no typed data") }
            let digest: Digest32
            do {
                let typedData: TypedData
                if case .string(let text) = params[1] {
                    typedData = try TypedData(jsonText: text)
                } else {
                    typedData = try TypedData(json: params[1])
                }
                digest = try typedData.digest()
            } catch {
                throw .invalid("the action's typed data does not hash: \(error)")
            }
            try checkSignature(result, digest: digest, account: account)
        case .personalSign?:
            guard case .string(let message)? = params.first else { throw .invalid("the action has no message") }
            try checkSignature(result, digest: PersonalMessage.digest(parameter: message), account: account)
        case .sendTransaction?:
            let hash: Bytes32
            do { hash = try Bytes32(hex: result) } catch {
                throw .invalid("expected the 32-byte hash of the \(action.method) transaction, got \(describe(result))")
            }
            guard let node else { return }
            let transaction: JSONObject?
            do { transaction = try await node.transactionByHash(hash) } catch { throw .node("\(error)") }
            guard let transaction else { throw .invalid("transaction \(hash.hex) is not known to the node") }
            guard case .object(let request)? = params.first else { throw .invalid("the action has no transaction") }
            try same(transaction["from"], request["from"] ?? .string(account.lowercased), "from", hash)
            guard address(transaction["from"]) == account else {
                throw .invalid("transaction \(hash.hex) is not from the option's account \(account.checksummed)")
            }
            if request["to"] != nil { try same(transaction["to"], request["to"], "to", hash) }
            let expectedData = request["data"] ?? request["input"]
            if let expectedData {
                let sent = (transaction["input"] ?? transaction["data"])?.stringValue?.lowercased()
                guard sent == expectedData.stringValue?.lowercased() else {
                    throw .invalid("transaction \(hash.hex) carries other calldata than the action's")
                }
            }
        case .signTransaction?, .sponsorTransaction?, nil:
            throw .invalid("the local service does not accept results for \(action.method)")
        }
    }

    private static func checkSignature(_ result: String, digest: Digest32, account: Address) throws(Problem) {
        let signature: RecoverableSignature
        do { signature = try RecoverableSignature(hex: result) } catch {
            throw .invalid("expected a 65-byte signature, got \(describe(result))")
        }
        let signer: Address
        do { signer = try ECDSA.recoverAddress(prehash: digest, signature: signature) } catch {
            throw .invalid("the signature does not recover: \(error)")
        }
        guard signer == account else {
            throw .invalid(
                "the signature recovers \(signer.checksummed), not the option's account \(account.checksummed)")
        }
    }

    private static func same(_ actual: JSONValue?, _ expected: JSONValue?, _ field: String, _ hash: Bytes32)
        throws(Problem)
    {
        guard let a = address(actual), let e = address(expected), a == e else {
            throw .invalid("transaction \(hash.hex) has another \(field) than the action")
        }
    }

    private static func address(_ value: JSONValue?) -> Address? {
        value?.stringValue.flatMap { try? Address($0) }
    }

    private static func describe(_ result: String) -> String {
        let hexDigits = result.hasPrefix("0x") ? result.utf8.count - 2 : result.utf8.count
        return "\(hexDigits / 2) bytes"
    }
}
