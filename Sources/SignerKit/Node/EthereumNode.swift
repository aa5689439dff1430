import EthereumPrimitives

/// An Ethereum node reached over JSON-RPC: the calls a wallet makes to fill, send and follow transactions.
///
/// Only ``call(method:params:)`` must be implemented; every other requirement has a default built on it
/// (quantities are read from their `0x`-hex text, never through `Double`).
public protocol EthereumNode: Sendable {
    /// Sends one JSON-RPC request and returns its `result` (which may be `null`).
    func call(method: String, params: [JSONValue]) async throws(NodeError) -> JSONValue
    /// Sends several requests as one JSON-RPC batch where the node client can (one round trip), and returns
    /// each request's outcome in request order: its `result`, or its own error (a JSON-RPC error object
    /// answers one request, not the batch). Throws only when the batch as a whole got no answer.
    /// The default sends the requests one after another with ``call(method:params:)``.
    func callBatch(_ requests: [NodeRequest]) async throws(NodeError) -> [Result<JSONValue, NodeError>]

    /// `eth_chainId`.
    func chainId() async throws(NodeError) -> UInt256
    /// `eth_getTransactionCount`: the next nonce of `address` as of `block`.
    func transactionCount(of address: Address, block: BlockTag) async throws(NodeError) -> UInt256
    /// `eth_estimateGas` for a transaction object (`from`, `to`, `value`, `data`, … as JSON-RPC spells them).
    func estimateGas(_ call: JSONObject) async throws(NodeError) -> UInt256
    /// `eth_gasPrice`: the node's suggested legacy gas price.
    func gasPrice() async throws(NodeError) -> UInt256
    /// `eth_maxPriorityFeePerGas`: the node's suggested EIP-1559 tip.
    func maxPriorityFeePerGas() async throws(NodeError) -> UInt256
    /// The latest block's base fee: `baseFeePerGas` of `eth_getBlockByNumber("latest", false)`, else the
    /// first entry of `eth_feeHistory(1, "latest", [])`; `nil` when the chain has no base fee (pre-London).
    func latestBaseFee() async throws(NodeError) -> UInt256?
    /// `eth_sendRawTransaction`: broadcasts a signed transaction and returns its hash.
    func sendRawTransaction(_ raw: [UInt8]) async throws(NodeError) -> Bytes32
    /// `eth_getTransactionReceipt`; `nil` while the transaction is unknown or not yet mined.
    func transactionReceipt(_ hash: Bytes32) async throws(NodeError) -> TransactionReceipt?
    /// `eth_getTransactionByHash` as the node returns it; `nil` when unknown.
    func transactionByHash(_ hash: Bytes32) async throws(NodeError) -> JSONObject?
    /// Polls ``transactionReceipt(_:)`` every `pollInterval` until a receipt appears, or throws
    /// ``NodeError/timeout(method:)`` once `timeout` has passed without one.
    func waitForReceipt(_ hash: Bytes32, timeout: Duration, pollInterval: Duration) async throws(NodeError)
        -> TransactionReceipt
}

extension EthereumNode {
    /// One request after another (a client that can send a JSON-RPC batch overrides this): a JSON-RPC error
    /// stays in its request's slot; any other failure ends the batch.
    public func callBatch(_ requests: [NodeRequest]) async throws(NodeError) -> [Result<JSONValue, NodeError>] {
        try await callOneByOne(requests)
    }

    /// ``callBatch(_:)`` as one ``call(method:params:)`` per request, in order: what the default does, and
    /// what a client falls back to when its node refuses batches. A JSON-RPC error stays in its request's
    /// slot; any other failure ends the batch.
    public func callOneByOne(_ requests: [NodeRequest]) async throws(NodeError) -> [Result<JSONValue, NodeError>] {
        var outcomes: [Result<JSONValue, NodeError>] = []
        outcomes.reserveCapacity(requests.count)
        for request in requests {
            do {
                outcomes.append(.success(try await call(method: request.method, params: request.params)))
            } catch {
                guard case .rpc = error else { throw error }
                outcomes.append(.failure(error))
            }
        }
        return outcomes
    }

    /// Calls `method` and reads its result as a hex quantity.
    func quantityResult(_ method: String, _ params: [JSONValue] = []) async throws(NodeError) -> UInt256 {
        let result = try await call(method: method, params: params)
        return try NodeResponseReader(method: method).quantity(result, field: "result")
    }

    /// `eth_chainId`.
    public func chainId() async throws(NodeError) -> UInt256 {
        try await quantityResult("eth_chainId")
    }

    /// `eth_getTransactionCount`: the next nonce of `address` as of `block`.
    public func transactionCount(of address: Address, block: BlockTag) async throws(NodeError) -> UInt256 {
        try await quantityResult("eth_getTransactionCount", [.string(address.checksummed), block.jsonValue])
    }

    /// `eth_getTransactionCount` as of the pending state: the nonce for the next transaction.
    public func transactionCount(of address: Address) async throws(NodeError) -> UInt256 {
        try await transactionCount(of: address, block: .pending)
    }

    /// `eth_estimateGas` for a transaction object.
    public func estimateGas(_ call: JSONObject) async throws(NodeError) -> UInt256 {
        try await quantityResult("eth_estimateGas", [.object(call)])
    }

    /// `eth_gasPrice`.
    public func gasPrice() async throws(NodeError) -> UInt256 {
        try await quantityResult("eth_gasPrice")
    }

    /// `eth_maxPriorityFeePerGas`.
    public func maxPriorityFeePerGas() async throws(NodeError) -> UInt256 {
        try await quantityResult("eth_maxPriorityFeePerGas")
    }

    /// The latest block's base fee, from the block itself or else from `eth_feeHistory`.
    ///
    /// When the block has no `baseFeePerGas`, a zero from `eth_feeHistory` (what pre-London nodes
    /// report) or a node error from it gives `nil`. When `eth_getBlockByNumber` itself fails with a
    /// node error, `eth_feeHistory` is tried and, if that fails too, the first error is thrown.
    public func latestBaseFee() async throws(NodeError) -> UInt256? {
        let blockMethod = "eth_getBlockByNumber"
        var blockError: NodeError?
        do {
            let result = try await call(method: blockMethod, params: [BlockTag.latest.jsonValue, .bool(false)])
            let reader = NodeResponseReader(method: blockMethod)
            if let block = try reader.optionalObject(result, field: "result"),
                let fee = try reader.optionalQuantity(block["baseFeePerGas"], field: "baseFeePerGas")
            {
                return fee
            }
        } catch {
            guard case .rpc = error else { throw error }
            blockError = error
        }
        let historyMethod = "eth_feeHistory"
        let history: JSONValue
        do {
            history = try await call(
                method: historyMethod, params: [.string("0x1"), BlockTag.latest.jsonValue, .array([])])
        } catch {
            if let blockError { throw blockError }
            guard case .rpc = error else { throw error }
            return nil
        }
        let reader = NodeResponseReader(method: historyMethod)
        guard let object = try reader.optionalObject(history, field: "result") else { return nil }
        guard let fees = object["baseFeePerGas"], fees != .null else { return nil }
        guard let entries = fees.arrayValue else {
            throw reader.fail("baseFeePerGas is a \(fees.kindName), not an array")
        }
        guard let first = entries.first else { return nil }
        let fee = try reader.quantity(first, field: "baseFeePerGas[0]")
        return fee.isZero ? nil : fee
    }

    /// `eth_sendRawTransaction`.
    public func sendRawTransaction(_ raw: [UInt8]) async throws(NodeError) -> Bytes32 {
        let method = "eth_sendRawTransaction"
        let result = try await call(method: method, params: [.string(Hex.encode(raw))])
        return try NodeResponseReader(method: method).bytes32(result, field: "result")
    }

    /// `eth_getTransactionReceipt`.
    public func transactionReceipt(_ hash: Bytes32) async throws(NodeError) -> TransactionReceipt? {
        let method = "eth_getTransactionReceipt"
        let result = try await call(method: method, params: [.string(hash.hex)])
        guard let object = try NodeResponseReader(method: method).optionalObject(result, field: "result") else {
            return nil
        }
        return try TransactionReceipt(json: object, method: method)
    }

    /// `eth_getTransactionByHash`.
    public func transactionByHash(_ hash: Bytes32) async throws(NodeError) -> JSONObject? {
        let method = "eth_getTransactionByHash"
        let result = try await call(method: method, params: [.string(hash.hex)])
        return try NodeResponseReader(method: method).optionalObject(result, field: "result")
    }

    /// Polls for the receipt of `hash`; see the requirement's documentation.
    public func waitForReceipt(_ hash: Bytes32, timeout: Duration, pollInterval: Duration) async throws(NodeError)
        -> TransactionReceipt
    {
        let method = "eth_getTransactionReceipt"
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            if let receipt = try await transactionReceipt(hash) { return receipt }
            let now = clock.now
            guard now < deadline else { throw .timeout(method: method) }
            let wake = min(now.advanced(by: max(pollInterval, .zero)), deadline)
            do {
                try await Task.sleep(until: wake, clock: clock)
            } catch {
                throw .cancelled(method: method)
            }
        }
    }

    /// Polls for the receipt of `hash` for up to two minutes, every half second.
    public func waitForReceipt(_ hash: Bytes32) async throws(NodeError) -> TransactionReceipt {
        try await waitForReceipt(hash, timeout: .seconds(120), pollInterval: .milliseconds(500))
    }
}
