import EthereumPrimitives

/// A transaction with its signature: what `eth_signTransaction` returns and
/// `eth_sendRawTransaction` broadcasts.
public struct SignedTransaction: Sendable, Hashable {
    /// The unsigned transaction.
    public let transaction: Transaction
    /// The signature over ``Transaction/signingHash``.
    public let signature: RecoverableSignature
    /// The broadcast encoding: `rlp([…, v, r, s])` for legacy, `type ‖ rlp([…, yParity, r, s])` for typed.
    public let rawTransaction: [UInt8]

    /// Attaches `signature` (which must be over `transaction.signingHash` to be valid; use
    /// ``recoverSender()`` to check).
    public init(transaction: Transaction, signature: RecoverableSignature) {
        self.transaction = transaction
        self.signature = signature
        rawTransaction = transaction.rawEncoding(signature: signature)
    }

    /// `0x`-hex of ``rawTransaction``.
    public var rawTransactionHex: String { Hex.encode(rawTransaction) }

    /// The transaction hash: Keccak-256 of ``rawTransaction``.
    public var hash: Bytes32 { Keccak256.hash(rawTransaction) }

    /// Decodes `0x`-hex of a raw transaction (see ``decode(raw:)``).
    ///
    /// - Throws: ``TransactionError/invalidBytes(field:_:)`` with field `"rawTransaction"` for bad
    ///   hex, otherwise as ``decode(raw:)``.
    public static func decode(hex: String) throws(TransactionError) -> SignedTransaction {
        let bytes: [UInt8]
        do throws(HexError) { bytes = try Hex.decode(hex) } catch {
            throw .invalidBytes(field: "rawTransaction", error)
        }
        return try decode(raw: bytes)
    }

    /// Decodes a raw legacy, EIP-2930, EIP-1559, EIP-7702 or Ronin sponsored (`0x64`) transaction, strictly.
    ///
    /// Accepts exactly the canonical encodings this type produces: one canonical RLP list with
    /// nothing after it, the exact field count, integers without leading zeros and at most 256
    /// bits, `to` empty or 20 bytes, storage keys of 32 bytes, `yParity` 0 or 1, and a legacy `v`
    /// of 27, 28 or 35 + 2·chainId + {0, 1}. A type `0x4` transaction needs a 20-byte destination and a
    /// non-empty authorization list of `[chainId, address, nonce, yParity, r, s]` tuples within
    /// EIP-7702's bounds (nonce below 2^64, yParity below 2^8). Re-encoding the result gives `raw` back.
    /// The signature values themselves are checked by ``recoverSender()`` (and, per tuple, by
    /// ``SignedAuthorization/recoverAuthority()``).
    ///
    /// - Throws: ``TransactionError/emptyRawTransaction``, ``TransactionError/unsupportedType(_:)``
    ///   for a type byte other than 0x01/0x02/0x04/0x64, ``TransactionError/malformedRLP(_:)`` (including
    ///   trailing bytes), ``TransactionError/wrongFieldCount(type:expected:actual:)``,
    ///   ``TransactionError/contractCreationNotAllowed(type:)`` and
    ///   ``TransactionError/emptyAuthorizationList`` (type `0x4`), or
    ///   ``TransactionError/invalidRawField(field:problem:)``.
    public static func decode(raw: [UInt8]) throws(TransactionError) -> SignedTransaction {
        guard let first = raw.first else { throw .emptyRawTransaction }
        let decoded: SignedTransaction
        switch first {
        case 0xc0...0xff:
            decoded = try RawDecoder.legacy(try RawDecoder.list(raw, offset: 0))
        case TransactionType.eip2930.rawValue:
            decoded = try RawDecoder.eip2930(try RawDecoder.list(Array(raw.dropFirst()), offset: 1))
        case TransactionType.eip1559.rawValue:
            decoded = try RawDecoder.eip1559(try RawDecoder.list(Array(raw.dropFirst()), offset: 1))
        case TransactionType.eip7702.rawValue:
            decoded = try RawDecoder.eip7702(try RawDecoder.list(Array(raw.dropFirst()), offset: 1))
        case TransactionType.roninSponsored.rawValue:
            decoded = try RawDecoder.roninSponsored(try RawDecoder.list(Array(raw.dropFirst()), offset: 1))
        case 0x80...0xbf:
            // An RLP byte string where a legacy transaction's list belongs.
            throw .malformedRLP(.expectedList)
        default:
            throw .unsupportedType(UInt256(UInt64(first)).hexQuantity)
        }
        assert(decoded.rawTransaction == raw, "strict decoding must round-trip")
        return decoded
    }
}

/// Field-by-field decoding of raw transactions.
enum RawDecoder {
    /// Decodes the RLP list of a transaction body; `offset` is where `bytes` start in the raw
    /// transaction, so error offsets refer to the raw transaction.
    static func list(_ bytes: [UInt8], offset: Int) throws(TransactionError) -> [RLPItem] {
        let item: RLPItem
        // Depth 4 is the deepest a transaction nests: body, access list, entry, storage keys.
        do throws(RLPError) { item = try RLP.decode(bytes, maxDepth: 4) } catch {
            throw .malformedRLP(error.shifted(by: offset))
        }
        guard case .list(let fields) = item else { throw .malformedRLP(.expectedList) }
        return fields
    }

    static func checkCount(_ fields: [RLPItem], _ expected: Int, _ type: TransactionType) throws(TransactionError) {
        guard fields.count == expected else {
            throw .wrongFieldCount(type: type, expected: expected, actual: fields.count)
        }
    }

    static func uint256(_ item: RLPItem, _ field: String) throws(TransactionError) -> UInt256 {
        do throws(RLPError) { return try item.uint256() } catch {
            throw .invalidRawField(field: field, problem: .rlp(error))
        }
    }

    /// A nonce: at most 2^64 − 2 (EIP-2681).
    static func nonce(_ item: RLPItem) throws(TransactionError) -> UInt256 {
        let value = try uint256(item, "nonce")
        guard value < UInt256(UInt64.max) else {
            let problem = "\(value.decimalString) (EIP-2681: below 2^64-1)"
            throw .invalidRawField(field: "nonce", problem: .invalidValue(problem))
        }
        return value
    }

    static func bytes(_ item: RLPItem, _ field: String) throws(TransactionError) -> [UInt8] {
        do throws(RLPError) { return try item.asBytes() } catch {
            throw .invalidRawField(field: field, problem: .rlp(error))
        }
    }

    static func to(_ item: RLPItem) throws(TransactionError) -> Address? {
        let raw = try bytes(item, "to")
        if raw.isEmpty { return nil }
        guard let address = Address(bytes: raw) else {
            throw .invalidRawField(field: "to", problem: .wrongLength(expected: 20, actual: raw.count))
        }
        return address
    }

    static func scalar(_ item: RLPItem, _ field: String) throws(TransactionError) -> Bytes32 {
        try uint256(item, field).word
    }

    static func accessList(_ item: RLPItem) throws(TransactionError) -> [AccessListEntry] {
        guard case .list(let entries) = item else {
            throw .invalidRawField(field: "accessList", problem: .rlp(.expectedList))
        }
        var result: [AccessListEntry] = []
        result.reserveCapacity(entries.count)
        for (i, entry) in entries.enumerated() {
            let name = "accessList[\(i)]"
            guard case .list(let pair) = entry else {
                throw .invalidRawField(field: name, problem: .rlp(.expectedList))
            }
            guard pair.count == 2 else {
                throw .invalidRawField(field: name, problem: .wrongItemCount(expected: 2, actual: pair.count))
            }
            let addressBytes = try bytes(pair[0], "\(name).address")
            guard let address = Address(bytes: addressBytes) else {
                throw .invalidRawField(
                    field: "\(name).address", problem: .wrongLength(expected: 20, actual: addressBytes.count))
            }
            guard case .list(let keyItems) = pair[1] else {
                throw .invalidRawField(field: "\(name).storageKeys", problem: .rlp(.expectedList))
            }
            var keys: [Bytes32] = []
            keys.reserveCapacity(keyItems.count)
            for (j, keyItem) in keyItems.enumerated() {
                let keyName = "\(name).storageKeys[\(j)]"
                let keyBytes = try bytes(keyItem, keyName)
                guard let key = Bytes32(keyBytes) else {
                    throw .invalidRawField(field: keyName, problem: .wrongLength(expected: 32, actual: keyBytes.count))
                }
                keys.append(key)
            }
            result.append(AccessListEntry(address: address, storageKeys: keys))
        }
        return result
    }

    /// The signature from `[yParity, r, s]`, its fields named `names` in errors.
    static func typedSignature(
        _ items: ArraySlice<RLPItem>, names: (v: String, r: String, s: String) = ("yParity", "r", "s")
    )
        throws(TransactionError) -> RecoverableSignature
    {
        let base = items.startIndex
        let parity = try uint256(items[base], names.v)
        guard let small = parity.uint64, small <= 1 else {
            throw .invalidRawField(field: names.v, problem: .invalidValue(parity.hexQuantity))
        }
        return try signature(
            r: scalar(items[base + 1], names.r), s: scalar(items[base + 2], names.s), recoveryId: UInt8(small),
            field: names.v)
    }

    static func signature(r: Bytes32, s: Bytes32, recoveryId: UInt8, field: String) throws(TransactionError)
        -> RecoverableSignature
    {
        do throws(SignatureError) { return try RecoverableSignature(r: r, s: s, recoveryId: recoveryId) } catch {
            throw .invalidRawField(field: field, problem: .invalidValue("0x\(recoveryId)"))
        }
    }

    static func legacy(_ f: [RLPItem]) throws(TransactionError) -> SignedTransaction {
        try checkCount(f, 9, .legacy)
        let vBytes: [UInt8]
        do throws(RLPError) { vBytes = try f[6].uintBytes(maxBytes: 33) } catch {
            throw .invalidRawField(field: "v", problem: .rlp(error))
        }
        guard let (recoveryId, chainId) = LegacyV.decode(vBytes) else {
            throw .invalidRawField(field: "v", problem: .invalidValue(Self.hexQuantity(vBytes)))
        }
        let tx = LegacyTransaction(
            nonce: try nonce(f[0]), gasPrice: try uint256(f[1], "gasPrice"),
            gasLimit: try uint256(f[2], "gasLimit"), to: try to(f[3]), value: try uint256(f[4], "value"),
            data: try bytes(f[5], "data"), chainId: chainId)
        let signature = try signature(
            r: scalar(f[7], "r"), s: scalar(f[8], "s"), recoveryId: recoveryId, field: "v")
        return SignedTransaction(transaction: .legacy(tx), signature: signature)
    }

    /// `[chainId, nonce, tip, feeCap, gas, to, value, data, expiredTime, payerV, payerR, payerS, v, r, s]`;
    /// `expiredTime` below 2^64, as the Ronin node reads it.
    static func roninSponsored(_ f: [RLPItem]) throws(TransactionError) -> SignedTransaction {
        try checkCount(f, 15, .roninSponsored)
        let expiredTime = try uint256(f[8], "expiredTime")
        guard let expiry = expiredTime.uint64 else {
            throw .invalidRawField(field: "expiredTime", problem: .invalidValue(expiredTime.hexQuantity))
        }
        let payerSignature = try typedSignature(f[9...11], names: ("payerV", "payerR", "payerS"))
        let tx = RoninSponsoredTransaction(
            chainId: try uint256(f[0], "chainId"), nonce: try nonce(f[1]),
            maxPriorityFeePerGas: try uint256(f[2], "maxPriorityFeePerGas"),
            maxFeePerGas: try uint256(f[3], "maxFeePerGas"), gasLimit: try uint256(f[4], "gasLimit"),
            to: try to(f[5]), value: try uint256(f[6], "value"), data: try bytes(f[7], "data"), expiredTime: expiry,
            payerSignature: payerSignature)
        return SignedTransaction(transaction: .roninSponsored(tx), signature: try typedSignature(f[12...]))
    }

    static func eip2930(_ f: [RLPItem]) throws(TransactionError) -> SignedTransaction {
        try checkCount(f, 11, .eip2930)
        let tx = EIP2930Transaction(
            chainId: try uint256(f[0], "chainId"), nonce: try nonce(f[1]),
            gasPrice: try uint256(f[2], "gasPrice"), gasLimit: try uint256(f[3], "gasLimit"), to: try to(f[4]),
            value: try uint256(f[5], "value"), data: try bytes(f[6], "data"), accessList: try accessList(f[7]))
        return SignedTransaction(transaction: .eip2930(tx), signature: try typedSignature(f[8...]))
    }

    static func eip1559(_ f: [RLPItem]) throws(TransactionError) -> SignedTransaction {
        try checkCount(f, 12, .eip1559)
        let tx = EIP1559Transaction(
            chainId: try uint256(f[0], "chainId"), nonce: try nonce(f[1]),
            maxPriorityFeePerGas: try uint256(f[2], "maxPriorityFeePerGas"),
            maxFeePerGas: try uint256(f[3], "maxFeePerGas"), gasLimit: try uint256(f[4], "gasLimit"),
            to: try to(f[5]), value: try uint256(f[6], "value"), data: try bytes(f[7], "data"),
            accessList: try accessList(f[8]))
        return SignedTransaction(transaction: .eip1559(tx), signature: try typedSignature(f[9...]))
    }

    static func eip7702(_ f: [RLPItem]) throws(TransactionError) -> SignedTransaction {
        try checkCount(f, 13, .eip7702)
        guard let destination = try to(f[5]) else { throw .contractCreationNotAllowed(type: .eip7702) }
        let tx = EIP7702Transaction(
            chainId: try uint256(f[0], "chainId"), nonce: try nonce(f[1]),
            maxPriorityFeePerGas: try uint256(f[2], "maxPriorityFeePerGas"),
            maxFeePerGas: try uint256(f[3], "maxFeePerGas"), gasLimit: try uint256(f[4], "gasLimit"),
            destination: destination, value: try uint256(f[6], "value"), data: try bytes(f[7], "data"),
            accessList: try accessList(f[8]), authorizationList: try authorizationList(f[9]))
        return SignedTransaction(transaction: .eip7702(tx), signature: try typedSignature(f[10...]))
    }

    /// The tuples `[chainId, address, nonce, yParity, r, s]`, within EIP-7702's bounds.
    static func authorizationList(_ item: RLPItem) throws(TransactionError) -> [SignedAuthorization] {
        guard case .list(let tuples) = item else {
            throw .invalidRawField(field: "authorizationList", problem: .rlp(.expectedList))
        }
        guard !tuples.isEmpty else { throw .emptyAuthorizationList }
        var result: [SignedAuthorization] = []
        result.reserveCapacity(tuples.count)
        for (i, tuple) in tuples.enumerated() {
            let name = "authorizationList[\(i)]"
            guard case .list(let t) = tuple else { throw .invalidRawField(field: name, problem: .rlp(.expectedList)) }
            guard t.count == 6 else {
                throw .invalidRawField(field: name, problem: .wrongItemCount(expected: 6, actual: t.count))
            }
            let addressBytes = try bytes(t[1], "\(name).address")
            guard let address = Address(bytes: addressBytes) else {
                throw .invalidRawField(
                    field: "\(name).address", problem: .wrongLength(expected: 20, actual: addressBytes.count))
            }
            let nonce = try uint256(t[2], "\(name).nonce")
            guard let nonce64 = nonce.uint64 else {
                throw .invalidRawField(
                    field: "\(name).nonce", problem: .invalidValue("\(nonce.hexQuantity) (EIP-7702: below 2^64)"))
            }
            let parity = try uint256(t[3], "\(name).yParity")
            guard let small = parity.uint64, small <= 0xff else {
                throw .invalidRawField(
                    field: "\(name).yParity", problem: .invalidValue("\(parity.hexQuantity) (EIP-7702: below 2^8)"))
            }
            result.append(
                SignedAuthorization(
                    chainId: try uint256(t[0], "\(name).chainId"), address: address, nonce: nonce64,
                    yParity: UInt8(small), r: try uint256(t[4], "\(name).r"), s: try uint256(t[5], "\(name).s")))
        }
        return result
    }

    /// `0x`-hex quantity of minimal big-endian bytes (any length).
    static func hexQuantity(_ bytes: [UInt8]) -> String {
        guard !bytes.isEmpty else { return "0x0" }
        let hex = Hex.encode(bytes, prefix: false)
        return "0x" + (hex.hasPrefix("0") ? String(hex.dropFirst()) : hex)
    }
}

extension RLPError {
    /// The same error with its byte offset moved by `delta` (for RLP that follows a type byte).
    func shifted(by delta: Int) -> RLPError {
        switch self {
        case .truncated(let offset): .truncated(offset: offset + delta)
        case .trailingBytes(let offset): .trailingBytes(offset: offset + delta)
        case .elementExceedsList(let offset): .elementExceedsList(offset: offset + delta)
        case .nonCanonicalSize(let offset): .nonCanonicalSize(offset: offset + delta)
        case .leadingZeroInLength(let offset): .leadingZeroInLength(offset: offset + delta)
        case .nonCanonicalSingleByte(let offset): .nonCanonicalSingleByte(offset: offset + delta)
        case .lengthOverflow(let offset): .lengthOverflow(offset: offset + delta)
        case .nestingTooDeep(let offset): .nestingTooDeep(offset: offset + delta)
        case .expectedBytes, .expectedList, .nonCanonicalInteger, .integerOverflow: self
        }
    }
}
