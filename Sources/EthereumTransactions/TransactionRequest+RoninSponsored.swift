import EthereumPrimitives

extension TransactionRequest {
    /// The hash a payer signs for this type `0x64` request on `chainId` (see
    /// ``RoninSponsoredTransaction/payerSigningHash(sender:)``): needs `from` (the sender), `expiredTime` and
    /// every field a node would fill (nonce, gas, fees).
    ///
    /// - Throws: ``TransactionError`` naming the first missing or unfitting field.
    public func roninPayerSigningHash(chainId expected: UInt256?) throws(TransactionError) -> Bytes32 {
        let body = try sponsoredBody(chainId: expected)
        return RoninSponsoredTransaction.payerSigningHash(
            chainId: body.chainId, sender: body.sender, nonce: body.nonce,
            maxPriorityFeePerGas: maxPriorityFeePerGas ?? 0, maxFeePerGas: maxFeePerGas ?? 0,
            gasLimit: gasLimit ?? 0, to: to, value: value, data: data, expiredTime: body.expiredTime)
    }

    /// The type `0x64` transaction the sender signs: the request's fields with the payer's signature, which
    /// must recover to `payer` (to any address but the sender when `payer` is absent).
    ///
    /// - Throws: ``TransactionError/missingField(_:)`` (`payerV` when the payer has not signed),
    ///   ``TransactionError/invalidPayerSignature(_:)``, ``TransactionError/payerIsSender(_:)``, or any
    ///   check of ``roninPayerSigningHash(chainId:)``.
    public func roninSponsored(chainId expected: UInt256?) throws(TransactionError) -> RoninSponsoredTransaction {
        let body = try sponsoredBody(chainId: expected)
        guard let payerSignature else { throw .missingField("payerV") }
        let transaction = RoninSponsoredTransaction(
            chainId: body.chainId, nonce: body.nonce, maxPriorityFeePerGas: maxPriorityFeePerGas ?? 0,
            maxFeePerGas: maxFeePerGas ?? 0, gasLimit: gasLimit ?? 0, to: to, value: value, data: data,
            expiredTime: body.expiredTime, payerSignature: payerSignature)
        _ = try transaction.verifyPayer(payer, sender: body.sender)
        return transaction
    }

    /// The fields every sponsored transaction needs, checked.
    private func sponsoredBody(chainId expected: UInt256?) throws(TransactionError) -> (
        chainId: UInt256, sender: Address, nonce: UInt256, expiredTime: UInt64
    ) {
        guard type == .roninSponsored else { throw .fieldNotAllowed(field: "expiredTime", type: type) }
        if let own = chainId, let expected, own != expected {
            throw .chainIdMismatch(transaction: own, expected: expected)
        }
        try validate()
        if let first = missingFields.first { throw .missingField(first) }
        guard let chain = chainId ?? expected else { throw .missingField("chainId") }
        guard let from else { throw .missingField("from") }
        guard let expiredTime else { throw .missingField("expiredTime") }
        return (chain, from, nonce ?? 0, expiredTime)
    }
}

extension RequestFields {
    /// `payerV`, `payerR`, `payerS` (all three or none): v = yParity (0 or 1), r and s quantities.
    func payerSignature() throws(TransactionError) -> RecoverableSignature? {
        let v = try quantity("payerV")
        let r = try quantity("payerR")
        let s = try quantity("payerS")
        guard v != nil || r != nil || s != nil else { return nil }
        guard let v else { throw .missingField("payerV") }
        guard let r else { throw .missingField("payerR") }
        guard let s else { throw .missingField("payerS") }
        guard let parity = v.uint64, parity <= 1 else {
            throw .invalidPayerSignature("payerV \(v.hexQuantity) is not 0 or 1 (a y-parity)")
        }
        do throws(SignatureError) {
            return try RecoverableSignature(r: r.word, s: s.word, recoveryId: UInt8(parity))
        } catch {
            throw .invalidPayerSignature("\(error)")
        }
    }
}
