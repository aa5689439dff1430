import EIP712
import EthereumPrimitives

/// A Safe transaction (v1.3.0 / v1.4.1): the EIP-712 struct `SafeTx` its owners sign, under the Safe's domain,
/// and the `execTransaction` call that runs it once `threshold` owners signed.
///
/// SignerKit builds one for a batch only: `to` the `MultiSendCallOnly` contract, called by `DELEGATECALL`, with
/// `multiSend(transactions)` as data, no refund (gas fields and gas token zero), at the Safe's current nonce.
public struct SafeTransaction: EIP712Struct, Hashable {
    /// How the Safe calls `to`.
    public enum Operation: UInt8, Sendable, Hashable {
        /// `CALL`.
        case call = 0
        /// `DELEGATECALL`: `to`'s code runs as the Safe (how `MultiSendCallOnly` batches).
        case delegateCall = 1
    }

    /// `SafeTx`.
    public static let eip712TypeName = "SafeTx"
    /// The struct's type.
    public static let encodeType =
        "SafeTx(address to,uint256 value,bytes data,uint8 operation,uint256 safeTxGas,uint256 baseGas,"
        + "uint256 gasPrice,address gasToken,address refundReceiver,uint256 nonce)"
    /// `0xbb8310d4…8fd8`.
    public static let typeHash = Keccak256.hash(utf8: encodeType)
    /// `execTransaction(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,bytes)`.
    public static let execTransactionSelector = ERC20Calldata.selector(
        "execTransaction(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,bytes)")
    /// `nonce()`: the Safe's next transaction nonce.
    public static let nonceSelector = ERC20Calldata.selector("nonce()")
    /// `multiSend(bytes)` of `MultiSendCallOnly`.
    public static let multiSendSelector = ERC20Calldata.selector("multiSend(bytes)")

    /// The called contract.
    public let to: Address
    /// Wei sent with the call.
    public let value: UInt256
    /// The call's data.
    public let data: [UInt8]
    /// `CALL` or `DELEGATECALL`.
    public let operation: Operation
    /// The Safe's nonce this transaction uses.
    public let nonce: UInt256

    /// A transaction without refund (every gas field and the gas token zero).
    public init(to: Address, value: UInt256 = .zero, data: [UInt8], operation: Operation, nonce: UInt256) {
        self.to = to
        self.value = value
        self.data = data
        self.operation = operation
        self.nonce = nonce
    }

    /// The Safe transaction that runs `calls` in order, all or none, through `MultiSendCallOnly` at `multiSend`.
    public init(batch calls: [ERC7821Batch.Call], multiSend: Address, nonce: UInt256) {
        var packed: [UInt8] = []
        for call in calls {
            // operation (0: CALL, the only one MultiSendCallOnly runs) ‖ to ‖ value ‖ data length ‖ data.
            packed +=
                [0] + call.to.bytes + call.value.word.bytes + UInt256(UInt64(call.data.count)).word.bytes
                + call.data
        }
        self.init(
            to: multiSend, data: ContractCallData.call(Self.multiSendSelector, [.bytes(packed)]),
            operation: .delegateCall, nonce: nonce)
    }

    /// Every member in order (the refund fields are zero).
    public func encodeData(into words: inout EIP712WordHasher) throws(EIP712Error) {
        words.write(to)
        words.write(value)
        words.write(bytes: data)
        words.write(UInt256(UInt64(operation.rawValue)))
        for _ in 0..<3 { words.write(UInt256.zero) }  // safeTxGas, baseGas, gasPrice
        for _ in 0..<2 { words.write(Bytes32.zero) }  // gasToken, refundReceiver
        words.write(nonce)
    }

    /// The digest the owners sign for the Safe at `safe` on chain `chainId` (the Safe's `getTransactionHash`).
    public func digest(safe: Address, chainId: UInt256) -> Digest32 {
        // Neither struct has a member that can fail to encode (no bounded integers, no fixed bytes).
        guard let digest = try? digest(domain: SafeDomain(chainId: chainId, verifyingContract: safe)) else {
            preconditionFailure("SafeTx and SafeDomain always encode")
        }
        return digest
    }

    /// `execTransaction(…, signatures)`: the call that runs this transaction with the owners' `signatures`
    /// (65 bytes each, ascending by owner).
    public func execTransactionCalldata(signatures: [UInt8]) -> [UInt8] {
        ContractCallData.call(
            Self.execTransactionSelector,
            [
                .word(to.word), .word(value.word), .bytes(data), .word(UInt256(UInt64(operation.rawValue)).word),
                .word(Bytes32.zero), .word(Bytes32.zero), .word(Bytes32.zero), .word(Bytes32.zero),
                .word(Bytes32.zero), .bytes(signatures),
            ])
    }
}
