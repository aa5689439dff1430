/// A CAIP-10 account id, `chain_id:account_address`, e.g.
/// `eip155:1:0xab16a96D359eC26a11e2C2b3d8f8B8942d5Bfcb5`.
///
/// The chain id is a ``ChainID``; the account address is 1 to 128 characters of `[-.%a-zA-Z0-9]`.
/// For the `eip155` namespace the address must also be a strict 20-byte `0x` address (all lower
/// case, all upper case, or a correct EIP-55 checksum; see ``Address``) and is stored in its
/// EIP-55 checksummed form, as the eip155 CAIP-10 profile recommends producing. So two spellings
/// of the same EVM account compare equal and format identically.
///
/// Encodes and decodes (`Codable`) as its string form.
public struct AccountID: Sendable, Hashable, CustomStringConvertible {
    /// The chain (CAIP-2).
    public let chainID: ChainID
    /// The account address; for `eip155` the EIP-55 checksummed `0x` form.
    public let address: String

    /// Parses `namespace:reference:account_address`.
    ///
    /// - Throws: ``CAIPError/malformedAccountID(_:)`` without two `:` separators, any ``ChainID``
    ///   error, ``CAIPError/invalidAccountAddress(_:)``, or for `eip155`
    ///   ``CAIPError/invalidEIP155Address(_:)``.
    public init(_ text: String) throws(CAIPError) {
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(of: UInt8(ascii: ":")),
            let second = utf8[utf8.index(after: first)...].firstIndex(of: UInt8(ascii: ":"))
        else { throw .malformedAccountID(text) }
        let chainID = try ChainID(String(text[..<second]))
        try self.init(chainID: chainID, address: String(text[utf8.index(after: second)...]))
    }

    /// Validates an account address on `chainID`.
    ///
    /// - Throws: ``CAIPError/invalidAccountAddress(_:)``, or for `eip155`
    ///   ``CAIPError/invalidEIP155Address(_:)``.
    public init(chainID: ChainID, address: String) throws(CAIPError) {
        guard Self.isValidAccountAddress(address) else { throw .invalidAccountAddress(address) }
        self.chainID = chainID
        if chainID.isEIP155 {
            do {
                self.address = try Address(address).checksummed
            } catch {
                throw .invalidEIP155Address(error)
            }
        } else {
            self.address = address
        }
    }

    /// An EVM account on `chainID`, written in EIP-55 checksummed form.
    public init(chainID: ChainID, address: Address) {
        self.chainID = chainID
        self.address = address.checksummed
    }

    /// An EVM account on the `eip155` chain with this chain id.
    public init(eip155 chainID: UInt64, address: Address) {
        self.init(chainID: ChainID(eip155: chainID), address: address)
    }

    /// `namespace:reference:account_address`.
    public var description: String { chainID.description + ":" + address }

    /// The EVM address for the `eip155` namespace, otherwise `nil`.
    public var ethereumAddress: Address? {
        guard chainID.isEIP155 else { return nil }
        return try? Address(address)
    }

    /// `[-.%a-zA-Z0-9]{1,128}`.
    static func isValidAccountAddress(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard (1...128).contains(utf8.count) else { return false }
        return utf8.allSatisfy { c in
            c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: "%") || ChainID.isAlphanumeric(c)
        }
    }
}

extension AccountID: Codable {
    /// Decodes from the string form, validating it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try AccountID(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes as the string form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
