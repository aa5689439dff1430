import EthereumPrimitives

/// Calls that an ERC-7821 executor runs in order, all or nothing: the calldata of
/// `execute(bytes32 mode, bytes executionData)` in the single-batch mode, `executionData` being
/// `abi.encode(Call[])` with `Call = (address target, uint256 value, bytes data)`.
///
/// An EOA delegated by EIP-7702 to such an executor batches by sending a transaction to its own address
/// with ``calldata`` as its data (the executor lets only the account itself execute). This is the
/// encoding `wallet_sendCalls` (EIP-5792) needs for an atomic batch of a 7702-delegated account.
///
/// ```swift
/// let batch = ERC7821Batch(calls: [
///     .init(to: token, data: approveCall),
///     .init(to: token, data: transferCall),
/// ])
/// let data = batch.calldata  // the `data` of a transaction from the account to itself
/// let same = try ERC7821Batch(decoding: data)  // strict: only the canonical encoding reads back
/// ```
public struct ERC7821Batch: Sendable, Hashable {
    /// One call of a batch.
    public struct Call: Sendable, Hashable {
        /// The called account (ERC-7821: the zero address stands for the executing account itself).
        public let to: Address
        /// Wei sent with the call.
        public let value: UInt256
        /// The call's data.
        public let data: [UInt8]

        /// A call to `to` carrying `value` wei and `data`.
        public init(to: Address, value: UInt256 = .zero, data: [UInt8]) {
            self.to = to
            self.value = value
            self.data = data
        }
    }

    /// The single-batch execution mode without `opData`: `0x01` followed by 31 zero bytes.
    public static let singleBatchMode: Bytes32 = {
        var mode = Bytes32.zero
        mode[0] = 0x01
        return mode
    }()

    /// `execute(bytes32,bytes)` → `0xe9ae5c53`.
    public static let executeSelector = ERC20Calldata.selector("execute(bytes32,bytes)")
    /// `supportsExecutionMode(bytes32)` → `0xd03c7914`.
    public static let supportsExecutionModeSelector = ERC20Calldata.selector("supportsExecutionMode(bytes32)")

    /// The calls, in the order they run.
    public let calls: [Call]

    /// A batch of `calls`, run in this order.
    public init(calls: [Call]) {
        self.calls = calls
    }

    /// `abi.encode(calls)`: the `executionData` of the single-batch mode.
    public var executionData: [UInt8] {
        let elements = calls.map { call in
            ContractCallData.Argument.encoded(
                ContractCallData.encode([.word(call.to.word), .word(call.value.word), .bytes(call.data)]))
        }
        return ContractCallData.encode([.encoded(ContractCallData.array(elements))])
    }

    /// `execute(singleBatchMode, executionData)`: the data of the account's transaction to itself.
    public var calldata: [UInt8] {
        ContractCallData.call(Self.executeSelector, [.word(Self.singleBatchMode), .bytes(executionData)])
    }

    /// `supportsExecutionMode(mode)`, for an `eth_call` asking an account whether it executes `mode`.
    public static func supportsExecutionModeCalldata(_ mode: Bytes32 = singleBatchMode) -> [UInt8] {
        ContractCallData.call(supportsExecutionModeSelector, [.word(mode)])
    }
}
