import EthereumPrimitives

/// The transaction envelopes this module builds and decodes.
public enum TransactionType: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Type `0x0`: the original RLP list, signed with or without EIP-155 replay protection.
    case legacy = 0
    /// Type `0x1`: EIP-2930, gas price plus an access list.
    case eip2930 = 1
    /// Type `0x2`: EIP-1559, priority fee and fee cap plus an access list.
    case eip1559 = 2
    /// Type `0x4`: EIP-7702 set-code, EIP-1559 fees plus an access list and signed authorizations.
    case eip7702 = 4
    /// Type `0x64`: Ronin's sponsored transaction, whose gas a payer pays (``RoninSponsoredTransaction``: the
    /// payer's and the sender's signatures, `signerkit tx sponsor` / `tx sign`). The dispatcher does not sign it
    /// through ``TransactionRequest/complete(chainId:)``: a request of this type is forwarded, as is, to a
    /// backend that hands it to the wallet that does (a Waypoint-style hosted wallet). Fields are checked as
    /// for the fee-market types.
    case roninSponsored = 0x64

    /// Whether the type pays EIP-1559 fees (`maxFeePerGas`, `maxPriorityFeePerGas`): `0x2`, `0x4` and `0x64`.
    public var hasFeeMarket: Bool { self == .eip1559 || self == .eip7702 || self == .roninSponsored }

    /// Whether the dispatcher signs transactions of this type itself (all but ``roninSponsored``, which needs
    /// its payer's signature first).
    public var isSignedLocally: Bool { self != .roninSponsored }

    /// The JSON-RPC quantity form of the type, e.g. `"0x2"`.
    public var hexQuantity: String { "0x" + String(rawValue, radix: 16) }

    /// `type 0x2 (EIP-1559)` and similar.
    public var description: String {
        switch self {
        case .legacy: "type 0x0 (legacy)"
        case .eip2930: "type 0x1 (EIP-2930)"
        case .eip1559: "type 0x2 (EIP-1559)"
        case .eip7702: "type 0x4 (EIP-7702)"
        case .roninSponsored: "type 0x64 (Ronin sponsored)"
        }
    }
}

/// One element of an EIP-2930 access list: an account and the storage slots it will touch.
public struct AccessListEntry: Sendable, Hashable {
    /// The account.
    public var address: Address
    /// The storage slots, in order (duplicates are kept as given).
    public var storageKeys: [Bytes32]

    /// Builds an entry.
    public init(address: Address, storageKeys: [Bytes32] = []) {
        self.address = address
        self.storageKeys = storageKeys
    }

    /// `[address, [storageKey, …]]`.
    var rlp: RLPItem {
        .list([.bytes(address.bytes), .list(storageKeys.map { .bytes($0.bytes) })])
    }
}

extension Array where Element == AccessListEntry {
    /// The access list as an RLP list of entries.
    var rlp: RLPItem { .list(map(\.rlp)) }
}

extension Optional where Wrapped == Address {
    /// The RLP form of a `to` field: the 20 bytes, or the empty string for a contract creation.
    var rlp: RLPItem {
        switch self {
        case .some(let address): .bytes(address.bytes)
        case .none: .empty
        }
    }
}
