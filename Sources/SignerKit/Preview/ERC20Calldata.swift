import EthereumPrimitives

/// The ERC-20 calls the preview decodes, by selector (the first four bytes of the Keccak-256 of the
/// canonical signature, computed here with SignerKit's own Keccak).
public enum ERC20Calldata {
    /// A decoded ERC-20 call.
    public enum Call: Sendable, Hashable {
        /// `transfer(to, amount)`.
        case transfer(to: Address, amount: UInt256)
        /// `approve(spender, amount)`.
        case approve(spender: Address, amount: UInt256)
        /// `transferFrom(from, to, amount)`.
        case transferFrom(from: Address, to: Address, amount: UInt256)
        /// `increaseAllowance(spender, addedValue)`.
        case increaseAllowance(spender: Address, amount: UInt256)
    }

    /// `transfer(address,uint256)` → `0xa9059cbb`.
    public static let transferSelector = selector("transfer(address,uint256)")
    /// `approve(address,uint256)` → `0x095ea7b3`.
    public static let approveSelector = selector("approve(address,uint256)")
    /// `transferFrom(address,address,uint256)` → `0x23b872dd`.
    public static let transferFromSelector = selector("transferFrom(address,address,uint256)")
    /// `increaseAllowance(address,uint256)` → `0x39509351`.
    public static let increaseAllowanceSelector = selector("increaseAllowance(address,uint256)")

    /// The 4-byte selector of a canonical function signature.
    public static func selector(_ signature: String) -> [UInt8] {
        Array(Keccak256.hash(utf8: signature).bytes.prefix(4))
    }

    /// The call `data` encodes, or `nil` when it is not exactly one of the four calls with well-formed
    /// arguments (an address word with nonzero high bytes, extra or missing bytes).
    public static func decode(_ data: [UInt8]) -> Call? {
        guard data.count >= 4 else { return nil }
        let selector = Array(data[0..<4])
        func word(_ i: Int) -> ArraySlice<UInt8> { data[(4 + 32 * i)..<(4 + 32 * (i + 1))] }
        func address(_ i: Int) -> Address? {
            let w = word(i)
            guard w.prefix(12).allSatisfy({ $0 == 0 }) else { return nil }
            return Address(bytes: w.suffix(20))
        }
        func uint(_ i: Int) -> UInt256? { UInt256(bigEndian: word(i)) }
        switch selector {
        case transferSelector where data.count == 68:
            guard let to = address(0), let amount = uint(1) else { return nil }
            return .transfer(to: to, amount: amount)
        case approveSelector where data.count == 68:
            guard let spender = address(0), let amount = uint(1) else { return nil }
            return .approve(spender: spender, amount: amount)
        case increaseAllowanceSelector where data.count == 68:
            guard let spender = address(0), let amount = uint(1) else { return nil }
            return .increaseAllowance(spender: spender, amount: amount)
        case transferFromSelector where data.count == 100:
            guard let from = address(0), let to = address(1), let amount = uint(2) else { return nil }
            return .transferFrom(from: from, to: to, amount: amount)
        default: return nil
        }
    }
}
