import EthereumPrimitives

/// What `wallet_getCallsStatus` answers for a batch: its status code, whether it ran atomically, and the
/// receipts of its transactions that are mined, in the order they were included.
public struct CallBatchStatus: Sendable, Equatable {
    /// EIP-5792's status codes.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        /// Sent, not every transaction mined yet.
        case pending = 100
        /// Every call included onchain without a revert.
        case confirmed = 200
        /// Nothing of the batch reached the chain, and SignerKit will not send it by itself.
        case offchainFailure = 400
        /// Everything sent reverted: only gas was spent.
        case reverted = 500
        /// Some calls took effect and the batch did not complete (a later call reverted or was never sent).
        case partiallyReverted = 600
    }

    /// The batch.
    public let batch: CallBatchRecord
    /// Its status.
    public let code: Code
    /// The mined transactions' receipts, in batch (and inclusion) order.
    public let receipts: [CallBatchReceipt]

    /// A status.
    public init(batch: CallBatchRecord, code: Code, receipts: [CallBatchReceipt]) {
        self.batch = batch
        self.code = code
        self.receipts = receipts
    }

    /// The status of a batch whose transactions `0..<journalled` are journalled, `receipts` holding the
    /// receipt of each (nil while not mined), in order.
    static func code(of batch: CallBatchRecord, receipts: [CallBatchReceipt?]) -> Code {
        if receipts.isEmpty { return .offchainFailure }
        if receipts.contains(where: { $0 == nil }) { return .pending }
        let mined = receipts.compactMap { $0 }
        let succeeded = mined.filter(\.receipt.succeeded).count
        if succeeded == 0 { return .reverted }
        if succeeded == batch.transactionCount { return .confirmed }
        return .partiallyReverted
    }

    /// The EIP-5792 object, with `id` as the caller knows the batch (the service's client sees its own id):
    /// `{"version":"2.0.0","id":…,"chainId":"0x…","status":200,"atomic":true,"receipts":[…]}`.
    public func json(id: String) -> JSONValue {
        var object = JSONObject()
        object["version"] = .string(CallBatchRequest.version)
        object["id"] = .string(id)
        object["chainId"] = .string((batch.chain.eip155ChainID ?? .zero).hexQuantity)
        object["status"] = .number(String(code.rawValue))
        object["atomic"] = .bool(batch.isAtomic)
        object["receipts"] = .array(receipts.map(\.json))
        return .object(object)
    }
}

/// One mined transaction of a batch: its receipt and logs as EIP-5792 reports them.
public struct CallBatchReceipt: Sendable, Equatable {
    /// One log entry.
    public struct Log: Sendable, Equatable {
        /// The emitting contract.
        public let address: Address
        /// The topics.
        public let topics: [Bytes32]
        /// The data.
        public let data: [UInt8]
    }

    /// The receipt.
    public let receipt: TransactionReceipt
    /// Its logs, in order.
    public let logs: [Log]

    /// Reads an `eth_getTransactionReceipt` object (strictly: a log that does not read is an error).
    public init(json: JSONObject) throws(NodeError) {
        let method = "eth_getTransactionReceipt"
        receipt = try TransactionReceipt(json: json, method: method)
        let reader = NodeResponseReader(method: method)
        guard case .array(let entries)? = json["logs"] else { throw reader.fail("logs: missing or not an array") }
        var logs: [Log] = []
        for (index, entry) in entries.enumerated() {
            guard case .object(let log) = entry, case .array(let topicValues)? = log["topics"] else {
                throw reader.fail("logs[\(index)]: not a log object")
            }
            var topics: [Bytes32] = []
            for topic in topicValues { topics.append(try reader.bytes32(topic, field: "logs[\(index)].topics")) }
            guard let dataText = log["data"]?.stringValue, let data = try? Hex.decode(dataText) else {
                throw reader.fail("logs[\(index)].data: not 0x-hex")
            }
            logs.append(
                Log(
                    address: try reader.address(log["address"], field: "logs[\(index)].address"), topics: topics,
                    data: data))
        }
        self.logs = logs
    }

    /// EIP-5792's receipt object: logs, status, blockHash, blockNumber, gasUsed, transactionHash.
    public var json: JSONValue {
        let logs = logs.map { log in
            JSONValue.object(
                JSONObject([
                    "address": .string(log.address.lowercased), "data": .string(Hex.encode(log.data)),
                    "topics": .array(log.topics.map { .string($0.hex) }),
                ]))
        }
        return .object(
            JSONObject([
                "logs": .array(logs), "status": .string(receipt.succeeded ? "0x1" : "0x0"),
                "blockHash": .string(receipt.blockHash.hex), "blockNumber": .string(receipt.blockNumber.hexQuantity),
                "gasUsed": .string(receipt.gasUsed.hexQuantity),
                "transactionHash": .string(receipt.transactionHash.hex),
            ]))
    }
}
