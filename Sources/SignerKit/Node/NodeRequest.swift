import EthereumPrimitives

/// One JSON-RPC request of a batch (``EthereumNode/callBatch(_:)``): a method and its params.
public struct NodeRequest: Sendable, Equatable {
    /// The JSON-RPC method.
    public let method: String
    /// Its params.
    public let params: [JSONValue]

    /// A request for `method` with `params`.
    public init(method: String, params: [JSONValue]) {
        self.method = method
        self.params = params
    }
}
