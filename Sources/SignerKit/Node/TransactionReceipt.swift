import EthereumPrimitives

/// The parts of an `eth_getTransactionReceipt` result a wallet needs.
public struct TransactionReceipt: Sendable, Equatable {
    /// The transaction's hash.
    public var transactionHash: Bytes32
    /// True when `status` is `0x1` (the transaction executed), false when it reverted (`0x0`).
    public var succeeded: Bool
    /// The number of the block that includes the transaction.
    public var blockNumber: UInt256
    /// The hash of that block.
    public var blockHash: Bytes32
    /// The sender.
    public var from: Address
    /// The recipient; `nil` for a contract creation.
    public var to: Address?
    /// Gas used by this transaction alone.
    public var gasUsed: UInt256
    /// The price per gas actually paid (base fee plus tip), when the node reports it.
    public var effectiveGasPrice: UInt256?
    /// The address of the contract created, for a contract creation.
    public var contractAddress: Address?

    /// Builds a receipt from its parts.
    public init(
        transactionHash: Bytes32, succeeded: Bool, blockNumber: UInt256, blockHash: Bytes32, from: Address,
        to: Address?, gasUsed: UInt256, effectiveGasPrice: UInt256?, contractAddress: Address?
    ) {
        self.transactionHash = transactionHash
        self.succeeded = succeeded
        self.blockNumber = blockNumber
        self.blockHash = blockHash
        self.from = from
        self.to = to
        self.gasUsed = gasUsed
        self.effectiveGasPrice = effectiveGasPrice
        self.contractAddress = contractAddress
    }

    /// Reads a receipt object as JSON-RPC returns it; `method` names the call in errors.
    ///
    /// Receipts without `status` (pre-Byzantium, which carry a state root instead) are refused.
    public init(json: JSONObject, method: String = "eth_getTransactionReceipt") throws(NodeError) {
        let reader = NodeResponseReader(method: method)
        let status = try reader.quantity(json["status"], field: "status")
        guard status <= UInt256(1) else {
            throw .invalidResponse(method: method, reason: "status \(status.hexQuantity) is neither 0x0 nor 0x1")
        }
        self.init(
            transactionHash: try reader.bytes32(json["transactionHash"], field: "transactionHash"),
            succeeded: status == UInt256(1),
            blockNumber: try reader.quantity(json["blockNumber"], field: "blockNumber"),
            blockHash: try reader.bytes32(json["blockHash"], field: "blockHash"),
            from: try reader.address(json["from"], field: "from"),
            to: try reader.optionalAddress(json["to"], field: "to"),
            gasUsed: try reader.quantity(json["gasUsed"], field: "gasUsed"),
            effectiveGasPrice: try reader.optionalQuantity(json["effectiveGasPrice"], field: "effectiveGasPrice"),
            contractAddress: try reader.optionalAddress(json["contractAddress"], field: "contractAddress")
        )
    }
}
