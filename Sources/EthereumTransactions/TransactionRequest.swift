import EthereumPrimitives

/// A transaction as requested through `eth_sendTransaction` / `eth_signTransaction`: possibly
/// incomplete (nonce, gas and fees may be left for a node to fill in), with the claimed sender.
///
/// Parse with ``init(json:)``, fill in what is missing with
/// ``filling(nonce:gasLimit:gasPrice:maxFeePerGas:maxPriorityFeePerGas:)``, then build the
/// transaction to sign with ``complete(chainId:)``.
public struct TransactionRequest: Sendable, Hashable {
    /// The envelope type, explicit or inferred (see ``init(json:)``).
    public var type: TransactionType
    /// The claimed sender (`from`), to be compared with the signing key; `nil` if absent.
    public var from: Address?
    /// The recipient; `nil` creates a contract from ``data``.
    public var to: Address?
    /// Wei transferred (0 when absent).
    public var value: UInt256
    /// Call data or init code (`data` or `input`; empty when absent).
    public var data: [UInt8]
    /// The sender's transaction count, if given.
    public var nonce: UInt256?
    /// The gas limit (`gas` or `gasLimit`), if given.
    public var gasLimit: UInt256?
    /// The gas price for type `0x0`/`0x1`, if given.
    public var gasPrice: UInt256?
    /// The fee cap for type `0x2`, if given.
    public var maxFeePerGas: UInt256?
    /// The priority fee for type `0x2`, if given.
    public var maxPriorityFeePerGas: UInt256?
    /// The access list (empty when absent; must be empty for type `0x0`).
    public var accessList: [AccessListEntry]
    /// The chain id the request names, if any.
    public var chainId: UInt256?
    /// The signed EIP-7702 authorizations of a type `0x4` request (empty for the other types).
    public var authorizationList: [SignedAuthorization]
    /// Type `0x64`: Unix seconds from which the transaction expires (0: never), if given.
    public var expiredTime: UInt64?
    /// Type `0x64`: the account that pays the gas, if named.
    public var payer: Address?
    /// Type `0x64`: the payer's signature (`payerV`, `payerR`, `payerS`), once the payer has signed.
    public var payerSignature: RecoverableSignature?

    /// Builds a request from already-typed values (no validation until ``complete(chainId:)``).
    public init(
        type: TransactionType, from: Address? = nil, to: Address?, value: UInt256 = 0, data: [UInt8] = [],
        nonce: UInt256? = nil, gasLimit: UInt256? = nil, gasPrice: UInt256? = nil,
        maxFeePerGas: UInt256? = nil, maxPriorityFeePerGas: UInt256? = nil,
        accessList: [AccessListEntry] = [], chainId: UInt256? = nil, authorizationList: [SignedAuthorization] = [],
        expiredTime: UInt64? = nil, payer: Address? = nil, payerSignature: RecoverableSignature? = nil
    ) {
        self.type = type
        self.from = from
        self.to = to
        self.value = value
        self.data = data
        self.nonce = nonce
        self.gasLimit = gasLimit
        self.gasPrice = gasPrice
        self.maxFeePerGas = maxFeePerGas
        self.maxPriorityFeePerGas = maxPriorityFeePerGas
        self.accessList = accessList
        self.chainId = chainId
        self.authorizationList = authorizationList
        self.expiredTime = expiredTime
        self.payer = payer
        self.payerSignature = payerSignature
    }

    /// Fields that would silently change meaning if ignored: blob (type 3) transactions are refused
    /// rather than signed as something else.
    static let unsupportedFields = [
        "blobVersionedHashes", "maxFeePerBlobGas", "blobs", "commitments", "proofs", "sidecar",
    ]

    /// Parses an `eth_sendTransaction` object.
    ///
    /// Members: `from`, `to`, `value`, `data` or `input`, `gas` or `gasLimit`, `gasPrice`,
    /// `maxFeePerGas`, `maxPriorityFeePerGas`, `nonce`, `accessList`, `authorizationList`, `type`,
    /// `chainId`, and for type `0x64` (as Ronin's RPC names them) `expiredTime`, `payer`, `payerV`,
    /// `payerR`, `payerS`. A member that is `null` counts as absent; other members are ignored, except blob
    /// fields, which are refused. Quantities are `0x`-hex strings, decimal strings or JSON integers.
    /// `data` and `input` (likewise `gas` and `gasLimit`) may both appear only with equal values.
    /// `authorizationList` holds signed tuples in the JSON-RPC shape (see
    /// ``SignedAuthorization/init(json:field:)``).
    ///
    /// The type is `type` when given (`0x0`, `0x1`, `0x2`, `0x4`); otherwise type `0x4` when an
    /// authorization list is present, type `0x2` when either EIP-1559 fee is present, type `0x1` when
    /// an access list is present, else legacy. A type `0x4` request needs `to` and a non-empty
    /// authorization list.
    ///
    /// - Throws: ``TransactionError`` naming the offending field; also when the fields do not
    ///   fit the type (``TransactionError/fieldNotAllowed(field:type:)``,
    ///   ``TransactionError/conflictingFields(_:_:)``), when `maxPriorityFeePerGas` exceeds
    ///   `maxFeePerGas`, and for a contract creation without data.
    public init(json: JSONValue) throws(TransactionError) {
        guard case .object(let object) = json else { throw .notAnObject(actual: json.kindName) }
        let fields = RequestFields(object: object)
        for name in Self.unsupportedFields where fields[name] != nil { throw .unsupportedField(name) }

        let explicitType: TransactionType?
        if let typeValue = fields["type"] {
            let number = try fields.quantity(typeValue, "type")
            guard let small = number.uint64, small <= 0xff, let type = TransactionType(rawValue: UInt8(small)) else {
                throw .unsupportedType(number.hexQuantity)
            }
            explicitType = type
        } else {
            explicitType = nil
        }

        let from = try fields.address("from")
        let to = try fields.address("to")
        let value = try fields.quantity("value") ?? 0
        let data = try fields.synonyms("data", "input", fields.bytes) ?? []
        let nonce = try fields.quantity("nonce")
        let gasLimit = try fields.synonyms("gas", "gasLimit", fields.quantity)
        let gasPrice = try fields.quantity("gasPrice")
        let maxFeePerGas = try fields.quantity("maxFeePerGas")
        let maxPriorityFeePerGas = try fields.quantity("maxPriorityFeePerGas")
        let accessList = try fields.accessList("accessList")
        let chainId = try fields.quantity("chainId")
        let authorizationList = try fields.authorizationList("authorizationList")
        let expiredTime = try fields.quantity("expiredTime").map { (value) throws(TransactionError) in
            guard let seconds = value.uint64 else {
                throw TransactionError.quantityTooWide(field: "expiredTime", value: value.hexQuantity, bits: 64)
            }
            return seconds
        }
        let payer = try fields.address("payer")
        let payerSignature = try fields.payerSignature()

        let type: TransactionType
        if let explicitType {
            type = explicitType
        } else if authorizationList != nil {
            if gasPrice != nil { throw .conflictingFields("gasPrice", "authorizationList") }
            type = .eip7702
        } else if maxFeePerGas != nil || maxPriorityFeePerGas != nil {
            if gasPrice != nil {
                throw .conflictingFields("gasPrice", maxFeePerGas != nil ? "maxFeePerGas" : "maxPriorityFeePerGas")
            }
            type = .eip1559
        } else if accessList != nil {
            type = .eip2930
        } else {
            type = .legacy
        }
        self.init(
            type: type, from: from, to: to, value: value, data: data, nonce: nonce, gasLimit: gasLimit,
            gasPrice: gasPrice, maxFeePerGas: maxFeePerGas, maxPriorityFeePerGas: maxPriorityFeePerGas,
            accessList: accessList ?? [], chainId: chainId, authorizationList: authorizationList ?? [],
            expiredTime: expiredTime, payer: payer, payerSignature: payerSignature)
        try validate()
    }

    /// Checks that the present fields fit ``type`` and each other.
    func validate() throws(TransactionError) {
        if let nonce { try Self.checkNonce(nonce) }
        switch type {
        case .legacy, .eip2930:
            if maxFeePerGas != nil { throw .fieldNotAllowed(field: "maxFeePerGas", type: type) }
            if maxPriorityFeePerGas != nil { throw .fieldNotAllowed(field: "maxPriorityFeePerGas", type: type) }
            if type == .legacy && !accessList.isEmpty { throw .fieldNotAllowed(field: "accessList", type: type) }
        case .eip1559, .eip7702, .roninSponsored:
            if gasPrice != nil { throw .fieldNotAllowed(field: "gasPrice", type: type) }
            if let maxFeePerGas, let maxPriorityFeePerGas, maxPriorityFeePerGas > maxFeePerGas {
                throw .priorityFeeAboveMaxFee(maxPriorityFeePerGas: maxPriorityFeePerGas, maxFeePerGas: maxFeePerGas)
            }
        }
        if type == .eip7702 {
            if to == nil { throw .contractCreationNotAllowed(type: type) }
            if authorizationList.isEmpty { throw .emptyAuthorizationList }
        } else if !authorizationList.isEmpty {
            throw .fieldNotAllowed(field: "authorizationList", type: type)
        }
        if type == .roninSponsored {
            if !accessList.isEmpty { throw .fieldNotAllowed(field: "accessList", type: type) }
            if let payer, payer == from { throw .payerIsSender(payer) }
        } else {
            for (field, present) in [
                ("expiredTime", expiredTime != nil), ("payer", payer != nil), ("payerV", payerSignature != nil),
            ] where present {
                throw .fieldNotAllowed(field: field, type: type)
            }
        }
        if to == nil && data.isEmpty { throw .contractCreationWithoutData }
    }

    /// Refuses nonces of 2^64 − 1 and above (EIP-2681).
    static func checkNonce(_ nonce: UInt256) throws(TransactionError) {
        guard nonce < UInt256(UInt64.max) else { throw .nonceTooLarge(nonce) }
    }

    /// The JSON names of the fields still missing for ``type``, in the order ``complete(chainId:)``
    /// checks them: `nonce`, `gas`, then `gasPrice` or `maxFeePerGas` and `maxPriorityFeePerGas`.
    /// The chain id is not listed: it comes from the caller.
    public var missingFields: [String] {
        var missing: [String] = []
        if nonce == nil { missing.append("nonce") }
        if gasLimit == nil { missing.append("gas") }
        switch type {
        case .legacy, .eip2930:
            if gasPrice == nil { missing.append("gasPrice") }
        case .eip1559, .eip7702, .roninSponsored:
            if maxFeePerGas == nil { missing.append("maxFeePerGas") }
            if maxPriorityFeePerGas == nil { missing.append("maxPriorityFeePerGas") }
        }
        return missing
    }

    /// A copy with the given values set where the request has none; values already present are
    /// kept, and fee values that the request's type does not use are ignored.
    public func filling(
        nonce: UInt256? = nil, gasLimit: UInt256? = nil, gasPrice: UInt256? = nil,
        maxFeePerGas: UInt256? = nil, maxPriorityFeePerGas: UInt256? = nil
    ) -> TransactionRequest {
        var copy = self
        copy.nonce = self.nonce ?? nonce
        copy.gasLimit = self.gasLimit ?? gasLimit
        switch type {
        case .legacy, .eip2930:
            copy.gasPrice = self.gasPrice ?? gasPrice
        case .eip1559, .eip7702, .roninSponsored:
            copy.maxFeePerGas = self.maxFeePerGas ?? maxFeePerGas
            copy.maxPriorityFeePerGas = self.maxPriorityFeePerGas ?? maxPriorityFeePerGas
        }
        return copy
    }

    /// The transaction to sign, for the chain `chainId` the request was addressed to (the
    /// CAIP-2 chain of the action).
    ///
    /// The request's own `chainId`, when present, must equal `chainId`; the transaction uses
    /// whichever is known. A legacy request with neither is signed without replay protection
    /// (pre-EIP-155) — pass `nil` only when that is really intended.
    ///
    /// - Throws: ``TransactionError/chainIdMismatch(transaction:expected:)``,
    ///   ``TransactionError/missingField(_:)`` for the first field in ``missingFields`` (or
    ///   `chainId` for a typed transaction without one), or any check of ``init(json:)``.
    public func complete(chainId expected: UInt256?) throws(TransactionError) -> Transaction {
        if let own = chainId, let expected, own != expected {
            throw .chainIdMismatch(transaction: own, expected: expected)
        }
        guard type.isSignedLocally else { throw .forwardOnly(type) }
        try validate()
        if let first = missingFields.first { throw .missingField(first) }
        let chain = chainId ?? expected
        // `missingFields` is empty, so every field the type needs is present.
        let nonce = nonce ?? 0
        let gasLimit = gasLimit ?? 0
        switch type {
        case .legacy:
            return .legacy(
                LegacyTransaction(
                    nonce: nonce, gasPrice: gasPrice ?? 0, gasLimit: gasLimit, to: to, value: value, data: data,
                    chainId: chain))
        case .eip2930:
            guard let chain else { throw .missingField("chainId") }
            return .eip2930(
                EIP2930Transaction(
                    chainId: chain, nonce: nonce, gasPrice: gasPrice ?? 0, gasLimit: gasLimit, to: to, value: value,
                    data: data, accessList: accessList))
        case .eip1559:
            guard let chain else { throw .missingField("chainId") }
            return .eip1559(
                EIP1559Transaction(
                    chainId: chain, nonce: nonce, maxPriorityFeePerGas: maxPriorityFeePerGas ?? 0,
                    maxFeePerGas: maxFeePerGas ?? 0, gasLimit: gasLimit, to: to, value: value, data: data,
                    accessList: accessList))
        case .eip7702:
            guard let chain else { throw .missingField("chainId") }
            // `validate()` refused a missing `to`.
            guard let to else { throw .contractCreationNotAllowed(type: type) }
            return .eip7702(
                EIP7702Transaction(
                    chainId: chain, nonce: nonce, maxPriorityFeePerGas: maxPriorityFeePerGas ?? 0,
                    maxFeePerGas: maxFeePerGas ?? 0, gasLimit: gasLimit, destination: to, value: value, data: data,
                    accessList: accessList, authorizationList: authorizationList))
        case .roninSponsored:
            throw .forwardOnly(type)
        }
    }
}

/// Typed access to the members of a request object; `null` members count as absent.
struct RequestFields {
    let object: JSONObject

    subscript(name: String) -> JSONValue? {
        guard let value = object[name], value != .null else { return nil }
        return value
    }

    func quantity(_ name: String) throws(TransactionError) -> UInt256? {
        guard let value = self[name] else { return nil }
        return try quantity(value, name)
    }

    func quantity(_ value: JSONValue, _ name: String) throws(TransactionError) -> UInt256 {
        let text: String
        switch value {
        case .string(let string): text = string
        case .number(let number): text = number
        default: throw .wrongJSONKind(field: name, expected: "a quantity string or integer", actual: value.kindName)
        }
        do throws(IntegerTextError) { return try UInt256(text: text) } catch {
            switch error {
            case .negative: throw .negativeQuantity(field: name, value: text)
            case .outOfRange: throw .quantityTooLarge(field: name, value: text)
            case .empty, .notAnInteger: throw .invalidQuantity(field: name, value: text)
            }
        }
    }

    func string(_ value: JSONValue, _ name: String) throws(TransactionError) -> String {
        guard case .string(let text) = value else {
            throw .wrongJSONKind(field: name, expected: "a string", actual: value.kindName)
        }
        return text
    }

    func address(_ name: String) throws(TransactionError) -> Address? {
        guard let value = self[name] else { return nil }
        return try address(value, name)
    }

    func address(_ value: JSONValue, _ name: String) throws(TransactionError) -> Address {
        let text = try string(value, name)
        do throws(AddressError) { return try Address(text) } catch { throw .invalidAddress(field: name, error) }
    }

    func bytes(_ name: String) throws(TransactionError) -> [UInt8]? {
        guard let value = self[name] else { return nil }
        let text = try string(value, name)
        do throws(HexError) { return try Hex.decode(text) } catch { throw .invalidBytes(field: name, error) }
    }

    /// The value of whichever of two synonymous members is present; both must agree.
    func synonyms<T: Equatable>(
        _ first: String, _ second: String, _ read: (String) throws(TransactionError) -> T?
    ) throws(TransactionError) -> T? {
        let a = try read(first)
        let b = try read(second)
        if let a, let b, a != b { throw .conflictingValues(first, second) }
        return a ?? b
    }

    func authorizationList(_ name: String) throws(TransactionError) -> [SignedAuthorization]? {
        guard let value = self[name] else { return nil }
        guard case .array(let items) = value else {
            throw .wrongJSONKind(field: name, expected: "an array", actual: value.kindName)
        }
        var list: [SignedAuthorization] = []
        list.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            list.append(try SignedAuthorization(json: item, field: "\(name)[\(i)]"))
        }
        return list
    }

    func accessList(_ name: String) throws(TransactionError) -> [AccessListEntry]? {
        guard let value = self[name] else { return nil }
        guard case .array(let items) = value else {
            throw .wrongJSONKind(field: name, expected: "an array", actual: value.kindName)
        }
        var entries: [AccessListEntry] = []
        entries.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            let entryName = "\(name)[\(i)]"
            guard case .object(let entryObject) = item else {
                throw .wrongJSONKind(field: entryName, expected: "an object", actual: item.kindName)
            }
            let entry = RequestFields(object: entryObject)
            guard let addressValue = entry["address"] else { throw .missingField("\(entryName).address") }
            let address = try address(addressValue, "\(entryName).address")
            let keysName = "\(entryName).storageKeys"
            guard let keysValue = entry["storageKeys"] else { throw .missingField(keysName) }
            guard case .array(let keyValues) = keysValue else {
                throw .wrongJSONKind(field: keysName, expected: "an array", actual: keysValue.kindName)
            }
            var keys: [Bytes32] = []
            keys.reserveCapacity(keyValues.count)
            for (j, keyValue) in keyValues.enumerated() {
                let keyName = "\(keysName)[\(j)]"
                let text = try string(keyValue, keyName)
                do throws(HexError) { keys.append(try Bytes32(hex: text)) } catch {
                    throw .invalidBytes(field: keyName, error)
                }
            }
            entries.append(AccessListEntry(address: address, storageKeys: keys))
        }
        return entries
    }
}
