import EthereumPrimitives
import EthereumTransactions
import SignerKit

/// The remote call that serves one resolved request (``RemoteSignerKind``'s table), and how its answer is read.
struct RemoteSignerCall: Sendable {
    /// Why a request has no remote call.
    enum Refusal: Error {
        /// The method is never forwarded (`eth_sendTransaction`).
        case unsupported(String)
        /// The action's params cannot be forwarded: why.
        case invalid(String)
    }

    /// The JSON-RPC method.
    let method: String
    /// Its params.
    let params: [JSONValue]
    /// Whether the answer is a raw transaction (else a signature).
    let returnsTransaction: Bool

    /// The call for `request` on a remote speaking `kind`.
    init(_ request: ResolvedRequest, kind: RemoteSignerKind) throws(Refusal) {
        let account = JSONValue.string(request.account.checksummed)
        switch request.payload {
        case .personalMessage(let bytes, _):
            let data = JSONValue.string(Hex.encode(bytes))
            switch kind {
            case .web3signer: (method, params) = ("eth_sign", [account, data])
            case .signerkit: (method, params) = ("personal_sign", [data, account])
            }
            returnsTransaction = false
        case .typedData:
            let document = try Self.param(1, of: request)
            let typedData: JSONValue
            if case .string(let text) = document {
                do { typedData = try JSONValue(parsing: text) } catch { throw .invalid("typed data is not JSON") }
            } else {
                typedData = document
            }
            switch kind {
            // web3signer reads the document as a JSON string (later versions also take an object).
            case .web3signer: (method, params) = ("eth_signTypedData", [account, .string(typedData.serialized)])
            case .signerkit: (method, params) = ("eth_signTypedData_v4", [account, typedData])
            }
            returnsTransaction = false
        case .sponsorship:
            throw .unsupported(request.method.rawValue)
        case .transaction:
            guard request.method == .signTransaction else { throw .unsupported(request.method.rawValue) }
            guard case .object(let transaction) = try Self.param(0, of: request) else {
                throw .invalid("the transaction is not an object")
            }
            (method, params) = Self.signTransaction(
                transaction, account: request.account, chainId: request.chainId, kind: kind)
            returnsTransaction = true
        }
    }

    /// `eth_signTransaction` of a filled transaction (the dispatcher's pipeline, for `eth_sendTransaction`).
    init(filled transaction: TransactionRequest, account: Address, chainId: UInt256, kind: RemoteSignerKind)
        throws(Refusal)
    {
        guard case .object(let object) = transaction.json else { throw .invalid("the transaction is not an object") }
        (method, params) = Self.signTransaction(object, account: account, chainId: chainId, kind: kind)
        returnsTransaction = true
    }

    /// The call that signs `transaction` for `account`: `from` set, the chain id named, and for web3signer the
    /// calldata in `data`.
    private static func signTransaction(
        _ transaction: JSONObject, account: Address, chainId: UInt256, kind: RemoteSignerKind
    ) -> (String, [JSONValue]) {
        var transaction = transaction
        transaction["from"] = .string(account.checksummed)
        // signerkit serve signs for the chain the transaction names; web3signer for its configured chain
        // (another chain's answer is refused by verification), and it reads the calldata from `data` only.
        if transaction["chainId"] == nil { transaction["chainId"] = .string(chainId.hexQuantity) }
        if kind == .web3signer, transaction["data"] == nil, let input = transaction["input"] {
            transaction["data"] = input
            transaction["input"] = nil
        }
        return ("eth_signTransaction", [.object(transaction)])
    }

    /// The `index`th param of the action.
    private static func param(_ index: Int, of request: ResolvedRequest) throws(Refusal) -> JSONValue {
        guard let params = (try? JSONValue(parsing: request.action.params))?.arrayValue, index < params.count else {
            throw .invalid("params[\(index)] is missing")
        }
        return params[index]
    }

    /// The result the remote's `answer` stands for, read strictly (not yet verified).
    ///
    /// - Throws: ``RemoteSignerError/malformedAnswer(call:field:reason:)`` naming `result`.
    func result(from answer: JSONValue) throws(RemoteSignerError) -> ActionResult {
        guard let text = answer.stringValue else {
            throw .malformedAnswer(call: method, field: "result", reason: "a \(answer.kindName), not a hex string")
        }
        if returnsTransaction {
            guard let raw = try? Hex.decode(text), !raw.isEmpty else {
                throw .malformedAnswer(call: method, field: "result", reason: "not 0x-hex transaction bytes")
            }
            return .rawTransaction(raw)
        }
        do { return .signature(try RecoverableSignature(hex: text)) } catch {
            throw .malformedAnswer(call: method, field: "result", reason: "not a 65-byte signature (\(error))")
        }
    }
}
