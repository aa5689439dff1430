import EthereumPrimitives

/// An EIP-7702 authorization: the account that signs it (its *authority*) lets its code become a
/// delegation to ``address`` on chain ``chainId`` (0: every chain) while its nonce is ``nonce``.
///
/// Signed over `keccak256(0x05 ‖ rlp([chainId, address, nonce]))` (``signingHash``). The bounds the EIP
/// makes validity conditions are the types' own: a 256-bit chain id and a 64-bit nonce.
public struct Authorization: Sendable, Hashable {
    /// EIP-7702's `MAGIC` byte that prefixes the signed payload.
    public static let magic: UInt8 = 0x05

    /// The chain the delegation is valid on; 0 makes it valid on every chain.
    public var chainId: UInt256
    /// The delegate: the contract whose code the authority's account runs.
    public var address: Address
    /// The authority's account nonce at which the delegation applies (once: applying it increments it).
    public var nonce: UInt64

    /// Builds an authorization.
    public init(chainId: UInt256, address: Address, nonce: UInt64) {
        self.chainId = chainId
        self.address = address
        self.nonce = nonce
    }

    /// Whether the delegation is valid on every chain (chain id 0).
    public var isValidOnEveryChain: Bool { chainId.isZero }

    /// Whether a node can ever apply it: EIP-7702 skips tuples whose nonce is 2^64 − 1.
    public var isApplicable: Bool { nonce < UInt64.max }

    /// `[chainId, address, nonce]`.
    var fields: [RLPItem] { [.uint256(chainId), .bytes(address.bytes), .uint(nonce)] }

    /// The bytes whose Keccak-256 is signed: `0x05 ‖ rlp([chainId, address, nonce])`.
    public var signingPayload: [UInt8] { [Self.magic] + RLP.encode(.list(fields)) }

    /// Keccak-256 of ``signingPayload``: the digest the authority signs.
    public var signingHash: Bytes32 { Keccak256.hash(signingPayload) }

    /// The signed authorization carrying `signature` (made over ``signingHash``).
    public func signed(with signature: RecoverableSignature) -> SignedAuthorization {
        SignedAuthorization(
            chainId: chainId, address: address, nonce: nonce, yParity: signature.yParity, r: UInt256(word: signature.r),
            s: UInt256(word: signature.s))
    }

    /// Parses `{"chainId", "address", "nonce"}` (quantities as `0x`-hex strings, decimal strings or JSON
    /// integers; other members are ignored).
    ///
    /// - Throws: ``TransactionError`` naming the member, prefixed with `field` (e.g.
    ///   `authorizationList[0].nonce`); ``TransactionError/quantityTooWide(field:value:bits:)`` for a nonce
    ///   of 2^64 or more.
    public init(json: JSONValue, field: String = "") throws(TransactionError) {
        guard case .object(let object) = json else {
            throw field.isEmpty
                ? .notAnObject(actual: json.kindName)
                : .wrongJSONKind(field: field, expected: "an object", actual: json.kindName)
        }
        let members = RequestFields(object: object)
        let prefix = field.isEmpty ? "" : field + "."
        self.init(
            chainId: try members.required(prefix, "chainId", members.quantity),
            address: try members.required(prefix, "address", members.address),
            nonce: try members.required(prefix, "nonce", members.nonce64))
    }

    /// `{"chainId","address","nonce"}` with minimal hex quantities and the EIP-55 address.
    public var json: JSONValue {
        .object(
            JSONObject([
                "chainId": .string(chainId.hexQuantity), "address": .string(address.checksummed),
                "nonce": .string(UInt256(nonce).hexQuantity),
            ]))
    }
}

/// An authorization with its signature, as it sits in a type-4 transaction's `authorizationList`:
/// `[chainId, address, nonce, yParity, r, s]`.
///
/// The values are kept as given, within the bounds that make a transaction valid (EIP-7702: yParity
/// below 2^8, r and s below 2^256). Whether the signature names an authority is decided by
/// `recoverAuthority()` (y parity 0 or 1, 0 < r < n, 0 < s ≤ n/2); a node skips tuples that fail it.
public struct SignedAuthorization: Sendable, Hashable {
    /// The chain the delegation is valid on; 0 makes it valid on every chain.
    public var chainId: UInt256
    /// The delegate.
    public var address: Address
    /// The authority's nonce at which the delegation applies.
    public var nonce: UInt64
    /// The y parity of the signature's R (0 or 1 for a signature that recovers).
    public var yParity: UInt8
    /// The signature's r.
    public var r: UInt256
    /// The signature's s.
    public var s: UInt256

    /// Builds a signed authorization from its six values.
    public init(chainId: UInt256, address: Address, nonce: UInt64, yParity: UInt8, r: UInt256, s: UInt256) {
        self.chainId = chainId
        self.address = address
        self.nonce = nonce
        self.yParity = yParity
        self.r = r
        self.s = s
    }

    /// The signed tuple `[chainId, address, nonce]`.
    public var authorization: Authorization { Authorization(chainId: chainId, address: address, nonce: nonce) }

    /// The signature, or `nil` when ``yParity`` is neither 0 nor 1.
    public var signature: RecoverableSignature? {
        try? RecoverableSignature(r: r.word, s: s.word, recoveryId: yParity)
    }

    /// `[chainId, address, nonce, yParity, r, s]`.
    var rlp: RLPItem {
        .list(authorization.fields + [.uint(UInt64(yParity)), .uint256(r), .uint256(s)])
    }

    /// Parses the JSON-RPC shape `{"chainId","address","nonce","yParity","r","s"}` (geth, viem): quantities
    /// as `0x`-hex strings, decimal strings or JSON integers; other members are ignored.
    ///
    /// - Throws: ``TransactionError`` naming the member, prefixed with `field`: a missing member, a nonce
    ///   of 2^64 or more, a `yParity` of 2^8 or more (the EIP's bounds; a `yParity` of 2…255 parses and
    ///   fails `recoverAuthority()`).
    public init(json: JSONValue, field: String = "") throws(TransactionError) {
        let unsigned = try Authorization(json: json, field: field)
        guard case .object(let object) = json else { throw .notAnObject(actual: json.kindName) }
        let members = RequestFields(object: object)
        let prefix = field.isEmpty ? "" : field + "."
        let parity = try members.required(prefix, "yParity", members.quantity)
        guard let small = parity.uint64, small <= 0xff else {
            throw .quantityTooWide(field: prefix + "yParity", value: parity.hexQuantity, bits: 8)
        }
        self.init(
            chainId: unsigned.chainId, address: unsigned.address, nonce: unsigned.nonce, yParity: UInt8(small),
            r: try members.required(prefix, "r", members.quantity),
            s: try members.required(prefix, "s", members.quantity))
    }

    /// `{"chainId","address","nonce","yParity","r","s"}` with minimal hex quantities (0 is `0x0`) and the
    /// EIP-55 address: the JSON-RPC shape.
    public var json: JSONValue {
        .object(
            JSONObject([
                "chainId": .string(chainId.hexQuantity), "address": .string(address.checksummed),
                "nonce": .string(UInt256(nonce).hexQuantity), "yParity": .string(UInt256(UInt64(yParity)).hexQuantity),
                "r": .string(r.hexQuantity), "s": .string(s.hexQuantity),
            ]))
    }
}

extension RequestFields {
    /// The member `name`, read by `read`; a missing (or `null`) member is ``TransactionError/missingField(_:)``.
    func required<T>(
        _ prefix: String, _ name: String, _ read: (JSONValue, String) throws(TransactionError) -> T
    ) throws(TransactionError) -> T {
        guard let value = self[name] else { throw .missingField(prefix + name) }
        return try read(value, prefix + name)
    }

    /// A quantity below 2^64.
    func nonce64(_ value: JSONValue, _ name: String) throws(TransactionError) -> UInt64 {
        let number = try quantity(value, name)
        guard let small = number.uint64 else {
            throw .quantityTooWide(field: name, value: number.hexQuantity, bits: 64)
        }
        return small
    }
}
