import EthereumPrimitives

extension TransactionRequest {
    /// The request as an `eth_sendTransaction` object, the inverse of ``init(json:)``: `type`, then the
    /// members that are set — `from`, `to`, `value`, `data`, `nonce`, `gas`, `gasPrice`, `maxFeePerGas`,
    /// `maxPriorityFeePerGas`, `accessList`, `chainId`, `authorizationList`, `expiredTime`, `payer`, `payerV`,
    /// `payerR`, `payerS` — quantities as minimal `0x`-hex,
    /// addresses EIP-55, bytes as `0x`-hex. `value` is always present; `data` and the lists only when not empty.
    public var json: JSONValue {
        var members: [JSONObject.Member] = [
            .init(key: "type", value: .string(UInt256(UInt64(type.rawValue)).hexQuantity))
        ]
        func add(_ key: String, _ value: JSONValue?) {
            if let value { members.append(.init(key: key, value: value)) }
        }
        func quantity(_ number: UInt256?) -> JSONValue? { number.map { .string($0.hexQuantity) } }
        add("from", from.map { .string($0.checksummed) })
        add("to", to.map { .string($0.checksummed) })
        add("value", quantity(value))
        add("data", data.isEmpty ? nil : .string(Hex.encode(data)))
        add("nonce", quantity(nonce))
        add("gas", quantity(gasLimit))
        add("gasPrice", quantity(gasPrice))
        add("maxFeePerGas", quantity(maxFeePerGas))
        add("maxPriorityFeePerGas", quantity(maxPriorityFeePerGas))
        add("accessList", accessList.isEmpty ? nil : .array(accessList.map(\.json)))
        add("chainId", quantity(chainId))
        add("authorizationList", authorizationList.isEmpty ? nil : .array(authorizationList.map(\.json)))
        add("expiredTime", quantity(expiredTime.map { UInt256($0) }))
        add("payer", payer.map { .string($0.checksummed) })
        if let payerSignature {
            add("payerV", quantity(UInt256(UInt64(payerSignature.recoveryId))))
            add("payerR", quantity(UInt256(word: payerSignature.r)))
            add("payerS", quantity(UInt256(word: payerSignature.s)))
        }
        return .object(JSONObject(members: members))
    }
}

extension AccessListEntry {
    /// `{"address","storageKeys"}`: the EIP-55 address and the slots as `0x`-hex words, the JSON-RPC shape.
    public var json: JSONValue {
        .object(
            JSONObject(members: [
                .init(key: "address", value: .string(address.checksummed)),
                .init(key: "storageKeys", value: .array(storageKeys.map { .string($0.hex) })),
            ]))
    }
}
