import EthereumPrimitives
import EthereumTransactions

/// Checks a backend's result against the request SignerKit resolved, before it may enter a
/// ``SignedActions`` (or, for a transaction SignerKit signed, before it is broadcast).
///
/// - Signing methods: a signature, low-s, recovering to the routed account over SignerKit's digest; or a
///   contract account's signature, which only the account can judge: ``verify(_:for:)`` returns its claim
///   for ``AccountSignatureVerifier`` (a 65-byte one that recovers to the account is accepted at once).
/// - `ronin_sponsorTransaction`: a payer's signature, low-s, recovering to the routed payer over the payer
///   hash SignerKit computed from the sender's request.
/// - `eth_sendTransaction`: a 32-byte transaction hash.
/// - `eth_signTransaction`: a raw transaction that decodes strictly, matches every field the request
///   gave (filled fields may be anything the request left open), carries the action's chain id, and
///   recovers (low-s) to the routed account.
enum ResultVerifier {
    /// Why a result was refused; the text names what is wrong.
    struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        let description: String
    }

    /// Verifies `result` for `request`; for a contract account's signature, returns the claim still to be
    /// checked by the account (`nil` when nothing is left to check).
    static func verify(_ result: ActionResult, for request: ResolvedRequest) throws(Failure) -> AccountSignatureClaim? {
        switch (request.payload, result) {
        case (.personalMessage(_, let digest), .signature(let signature)):
            try check(signature, digest: digest, account: request.account)
        case (.typedData(_, let hashes), .signature(let signature)):
            try check(signature, digest: hashes.digest, account: request.account)
        case (.personalMessage(_, let digest), .contractSignature(let bytes)):
            return contractClaim(bytes, digest: digest, account: request.account)
        case (.typedData(_, let hashes), .contractSignature(let bytes)):
            return contractClaim(bytes, digest: hashes.digest, account: request.account)
        case (.sponsorship(_, let payerHash), .payerSignature(let signature)):
            try check(signature, digest: payerHash, account: request.account)
        case (.transaction, .transactionHash) where request.method == .sendTransaction:
            return nil
        case (.transaction(let transaction, let feesOpen), .rawTransaction(let raw))
        where request.method == .signTransaction:
            let signed: SignedTransaction
            do { signed = try SignedTransaction.decode(raw: raw) } catch {
                throw Failure(description: "the raw transaction does not decode: \(error)")
            }
            try verify(signed, matches: transaction, feesOpen: feesOpen, for: request)
        default:
            throw Failure(
                description:
                    "\(request.method.rawValue) must return \(expectedKind(request.method)), got \(kind(result))")
        }
        return nil
    }

    /// Whether `signature` is `account`'s EOA signature over the digest of `request` (a message or typed data).
    static func isEOASignature(_ signature: RecoverableSignature, of account: Address, for request: ResolvedRequest)
        -> Bool
    {
        let digest: Digest32
        switch request.payload {
        case .personalMessage(_, let messageDigest): digest = messageDigest
        case .typedData(_, let hashes): digest = hashes.digest
        case .transaction, .sponsorship: return false
        }
        do { try SignatureCheck.verify(signature, over: digest, by: account) } catch { return false }
        return true
    }

    /// The claim a contract account must judge, or `nil` when the bytes are already an EOA signature of the
    /// account (no node call for those).
    private static func contractClaim(_ bytes: [UInt8], digest: Digest32, account: Address) -> AccountSignatureClaim? {
        let claim = AccountSignatureClaim(account: account, digest: digest, signature: bytes)
        if case .valid = AccountSignatureVerifier.eoaCheck(claim) { return nil }
        return claim
    }

    /// Verifies a transaction SignerKit is about to broadcast or return: it matches the request and was
    /// signed by the routed account.
    static func verify(
        _ signed: SignedTransaction, matches request: TransactionRequest, feesOpen: Bool, for resolved: ResolvedRequest
    ) throws(Failure) {
        let transaction = signed.transaction
        var request = request
        if let delegation = resolved.selfDelegation {
            // The batch's own delegation: the one tuple SignerKit signed for this nonce, nothing else.
            if let mismatch = delegation.mismatch(
                transaction.authorizationList, nonce: transaction.nonce, account: resolved.account,
                chainId: resolved.chainId)
            {
                throw Failure(description: "the signed transaction differs from the request: \(mismatch)")
            }
            request.type = .eip7702
            request.authorizationList = transaction.authorizationList
        }
        if let mismatch = mismatch(transaction, request, feesOpen: feesOpen, chainId: resolved.chainId) {
            throw Failure(description: "the signed transaction differs from the request: \(mismatch)")
        }
        let sender: Address
        do { sender = try signed.recoverSender() } catch {
            throw Failure(description: "the signed transaction's signature: \(error)")
        }
        guard sender == resolved.account else {
            throw Failure(
                description:
                    "the transaction is signed by \(sender.checksummed), not by the account \(resolved.account.checksummed)"
            )
        }
        if case .roninSponsored(let sponsored) = transaction {
            // The payer's signature is the request's and recovers to its payer (any but the sender if unnamed).
            if let asked = request.payerSignature, sponsored.payerSignature != asked {
                throw Failure(description: "the signed transaction differs from the request: the payer's signature")
            }
            do { _ = try sponsored.verifyPayer(request.payer, sender: sender) } catch {
                throw Failure(description: "the signed transaction's payer: \(error)")
            }
        }
    }

    private static func check(_ signature: RecoverableSignature, digest: Digest32, account: Address) throws(Failure) {
        do { try SignatureCheck.verify(signature, over: digest, by: account) } catch {
            throw Failure(description: error.description)
        }
    }

    /// The first field where `transaction` differs from what `request` asked for, or `nil`.
    private static func mismatch(
        _ transaction: Transaction, _ request: TransactionRequest, feesOpen: Bool, chainId: UInt256
    ) -> String? {
        if transaction.chainId != chainId {
            let signed = transaction.chainId?.decimalString ?? "none (unprotected)"
            return "chainId \(signed) is not \(chainId.decimalString)"
        }
        if !feesOpen && transaction.type != request.type { return "type \(transaction.type) is not \(request.type)" }
        if transaction.to != request.to { return "to \(transaction.to?.checksummed ?? "none") differs" }
        if transaction.value != request.value { return "value \(transaction.value.decimalString) differs" }
        if transaction.data != request.data { return "data differs" }
        if transaction.accessList != request.accessList { return "accessList differs" }
        if transaction.authorizationList != request.authorizationList { return "authorizationList differs" }
        if request.type == .eip7702 && transaction.type != .eip7702 {
            return "type \(transaction.type) is not \(request.type)"
        }
        if let nonce = request.nonce, transaction.nonce != nonce { return "nonce \(transaction.nonce) differs" }
        if case .roninSponsored(let sponsored) = transaction, let expiry = request.expiredTime,
            sponsored.expiredTime != expiry
        {
            return "expiredTime \(sponsored.expiredTime) differs"
        }
        if let gas = request.gasLimit, transaction.gasLimit != gas { return "gas \(transaction.gasLimit) differs" }
        switch transaction.type {
        case .legacy, .eip2930:
            if let gasPrice = request.gasPrice, transaction.gasFeeCap != gasPrice { return "gasPrice differs" }
        case .eip1559, .eip7702, .roninSponsored:
            if let maxFee = request.maxFeePerGas, transaction.gasFeeCap != maxFee { return "maxFeePerGas differs" }
            if let tip = request.maxPriorityFeePerGas, transaction.gasTipCap != tip {
                return "maxPriorityFeePerGas differs"
            }
        }
        return nil
    }

    private static func expectedKind(_ method: RpcMethod) -> String {
        switch method {
        case .personalSign, .signTypedDataV4: "a signature"
        case .sendTransaction: "a transaction hash"
        case .signTransaction: "a raw signed transaction"
        case .sponsorTransaction: "a payer's signature"
        }
    }

    private static func kind(_ result: ActionResult) -> String {
        switch result {
        case .signature: "a signature"
        case .transactionHash: "a transaction hash"
        case .rawTransaction: "a raw transaction"
        case .contractSignature: "a contract account's signature"
        case .payerSignature: "a payer's signature"
        }
    }
}
