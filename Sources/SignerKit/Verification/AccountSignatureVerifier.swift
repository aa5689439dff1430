import EthereumPrimitives
import Secp256k1

/// Decides whether signatures are their accounts': EOAs by recovery, contract accounts by asking them.
///
/// For each claim, a 65-byte signature that is low-s and recovers to the account over the digest is valid
/// with no node call (``AccountSignatureKind/eoa``: exactly SignerKit's EOA check, ``SignatureCheck``).
/// Otherwise, with a node for the account's chain:
/// - a signature ending in ``ERC6492Wrapper/magicSuffix`` is parsed (a malformed wrapper is invalid) and
///   sent as a deployless `eth_call` of SignerKit's validator (`scripts/erc6492-validator/validator.asm`),
///   which deploys an account that has no code through the wrapper's factory inside the call and asks it;
/// - any other signature is sent as `eth_call` of the account's `isValidSignature(digest, signature)`,
///   valid when the first word answered is `0x1626ba7e` padded with zeros.
///
/// All the calls of one ``verify(_:node:)`` go in one JSON-RPC batch (``EthereumNode/callBatch(_:)``): one
/// round trip for any number of contract-account claims on a chain. Read-only: a revert or any other
/// answer is a verdict of invalid; only a node or transport failure throws.
///
/// ```swift
/// let verdicts = try await AccountSignatureVerifier.verify([claim], node: node)
/// if case .valid(let kind) = verdicts[0] { print("valid \(kind)") }
/// ```
public enum AccountSignatureVerifier {
    /// `isValidSignature(bytes32,bytes)`: `0x1626ba7e`, also the value a valid signature returns.
    public static let isValidSignatureSelector: [UInt8] = [0x16, 0x26, 0xba, 0x7e]

    /// The verdict without a node: valid only as an EOA signature.
    public static func verifyWithoutNode(_ claim: AccountSignatureClaim) -> AccountSignatureVerdict {
        withoutNode(eoaCheck(claim))
    }

    /// The verdict of an EOA check when no node can ask a contract account.
    private static func withoutNode(_ eoa: AccountSignatureVerdict) -> AccountSignatureVerdict {
        guard case .invalid(let reason) = eoa else { return eoa }
        return .invalid("\(reason) (without a node only an EOA signature can be valid)")
    }

    /// The verdicts on `claims`, in order; EOA signatures without a node call, every other claim in one
    /// JSON-RPC batch to `node` (the node of the accounts' chain). Without a node, ``verifyWithoutNode(_:)``.
    ///
    /// - Throws: the node's failure when the batch got no answer, or when one call failed for another reason
    ///   than the account's own answer (a revert is a verdict, not an error).
    public static func verify(_ claims: [AccountSignatureClaim], node: (any EthereumNode)?) async throws(NodeError)
        -> [AccountSignatureVerdict]
    {
        var verdicts: [AccountSignatureVerdict?] = []
        verdicts.reserveCapacity(claims.count)
        var pending: [(slot: Int, call: ContractCheck)] = []
        for (slot, claim) in claims.enumerated() {
            let eoa = eoaCheck(claim)
            if case .valid = eoa {
                verdicts.append(.valid(.eoa))
                continue
            }
            guard node != nil else {
                verdicts.append(withoutNode(eoa))
                continue
            }
            do throws(ERC6492WrapperError) {
                let call = try contractCheck(claim)
                verdicts.append(nil)
                pending.append((slot, call))
            } catch {
                verdicts.append(.invalid(error.description))
            }
        }
        if let node, !pending.isEmpty {
            let outcomes = try await node.callBatch(pending.map(\.call.request))
            guard outcomes.count == pending.count else {
                throw .invalidResponse(
                    method: "eth_call", reason: "\(outcomes.count) answers for \(pending.count) requests")
            }
            for ((slot, call), outcome) in zip(pending, outcomes) {
                verdicts[slot] = try call.verdict(outcome)
            }
        }
        // Every slot left empty above is a pending claim, and every pending claim got its outcome.
        return verdicts.map { $0 ?? .invalid("no answer from the node for this signature") }
    }

    /// The EOA check: 65 bytes, low-s, recovering to the account.
    static func eoaCheck(_ claim: AccountSignatureClaim) -> AccountSignatureVerdict {
        guard claim.signature.count == 65 else {
            return .invalid("a \(claim.signature.count)-byte signature is not an EOA signature (65 bytes)")
        }
        let signature: RecoverableSignature
        do { signature = try RecoverableSignature(rsv: claim.signature) } catch {
            return .invalid("not an EOA signature: \(error)")
        }
        do { try SignatureCheck.verify(signature, over: claim.digest, by: claim.account) } catch {
            return .invalid(error.description)
        }
        return .valid(.eoa)
    }

    /// The `eth_call` that asks the account about `claim`.
    ///
    /// - Throws: why a signature ending in the ERC-6492 suffix is not a wrapper (then no call is made).
    static func contractCheck(_ claim: AccountSignatureClaim) throws(ERC6492WrapperError) -> ContractCheck {
        if ERC6492Wrapper.isWrapped(claim.signature) {
            _ = try ERC6492Wrapper(parsing: claim.signature)
            let data = ERC6492Validator.callData(signer: claim.account, hash: claim.digest, signature: claim.signature)
            let call = JSONObject(["data": .string(Hex.encode(data))])
            return ContractCheck(claim: claim, kind: .erc6492, call: call)
        }
        let data = ContractCallData.call(
            isValidSignatureSelector, [.word(claim.digest), .bytes(claim.signature)])
        let call = JSONObject(["to": .string(claim.account.checksummed), "data": .string(Hex.encode(data))])
        return ContractCheck(claim: claim, kind: .erc1271, call: call)
    }

    /// One contract-account check: its call and how to read the answer.
    struct ContractCheck: Sendable {
        let claim: AccountSignatureClaim
        let kind: AccountSignatureKind
        let call: JSONObject

        /// The `eth_call` request, at the latest block.
        var request: NodeRequest { NodeRequest(method: "eth_call", params: [.object(call), .string("latest")]) }

        /// The verdict the node's outcome gives; a failure other than the call's own (a revert) is thrown.
        func verdict(_ outcome: Result<JSONValue, NodeError>) throws(NodeError) -> AccountSignatureVerdict {
            let answer: JSONValue
            switch outcome {
            case .success(let value): answer = value
            case .failure(let error):
                guard case .rpc(let code, let message, _) = error, Self.isRevert(code: code, message: message) else {
                    throw error
                }
                let who = kind == .erc6492 ? "the ERC-6492 validation" : "\(claim.account.checksummed).isValidSignature"
                return .invalid("\(who) reverted: \(EchoedText.abbreviated(message))")
            }
            let bytes: [UInt8]
            do { bytes = try Hex.decode(answer.stringValue ?? "") } catch {
                throw .invalidResponse(method: "eth_call", reason: "result is not hex data")
            }
            let word = Array(bytes.prefix(32))
            switch kind {
            case .erc6492:
                guard bytes.count == 32 else {
                    throw .invalidResponse(method: "eth_call", reason: "the validator answered \(bytes.count) bytes")
                }
                if word.last == 1 && word.dropLast().allSatisfy({ $0 == 0 }) { return .valid(.erc6492) }
                return .invalid(
                    "\(claim.account.checksummed) (deployed by the ERC-6492 wrapper's factory when it had no code) "
                        + "does not accept the wrapped signature")
            default:
                let magic = AccountSignatureVerifier.isValidSignatureSelector + [UInt8](repeating: 0, count: 28)
                if word == magic { return .valid(.erc1271) }
                if bytes.isEmpty {
                    return .invalid(
                        "\(claim.account.checksummed).isValidSignature answered nothing (no contract there?)")
                }
                return .invalid(
                    "\(claim.account.checksummed).isValidSignature answered \(EchoedText.abbreviated(Hex.encode(word))), "
                        + "not 0x1626ba7e")
            }
        }

        /// Whether a JSON-RPC error is the call's own revert (geth: code 3 with data, or "execution reverted").
        static func isRevert(code: Int, message: String) -> Bool {
            code == 3 || message.lowercased().contains("revert")
        }
    }
}
