import EthereumPrimitives
import EthereumTransactions

/// Fills a transaction's missing nonce, gas and fees from a node.
enum TransactionFiller {
    /// A missing nonce is `max(node pending count, nonceFloor)`: the floor covers transactions this batch
    /// (or the journal) already used, which a lagging node may not count yet.
    ///
    /// `authorizing`, when given, signs the transaction's own EIP-7702 authorization for the filled nonce: it is
    /// added (the type becoming 0x4) before the gas is estimated, so the node runs the call delegated.
    static func fill(
        _ request: TransactionRequest, feesOpen: Bool, from: Address, node: (any EthereumNode)?,
        nonceFloor: UInt256? = nil,
        authorizing: (@Sendable (UInt256) async throws(SignerError) -> SignedAuthorization)? = nil
    ) async throws(SignerError) -> TransactionRequest {
        var request = request
        guard !request.missingFields.isEmpty || feesOpen else { return request }
        guard let node else {
            if request.missingFields.isEmpty { return request }
            throw .invalidRequest(
                "transaction is missing \(request.missingFields.joined(separator: ", ")) and no node is configured to fill it"
            )
        }
        do {
            if feesOpen, let baseFee = try await node.latestBaseFee() {
                // A set-code transaction keeps its type: it pays EIP-1559 fees already.
                if request.type != .eip7702 { request.type = .eip1559 }
                let tip = try await node.maxPriorityFeePerGas()
                // 2 × base fee + tip: stays valid through several full blocks.
                guard let maxFee = baseFee.multipliedAdding(2, 0)?.adding(tip) else {
                    throw SignerError.backendFailure("node fee values overflow")
                }
                request = request.filling(maxFeePerGas: maxFee, maxPriorityFeePerGas: tip)
            }
            if request.nonce == nil {
                let pending = try await node.transactionCount(of: from, block: .pending)
                request = request.filling(nonce: max(pending, nonceFloor ?? .zero))
            }
            if let authorizing, let nonce = request.nonce {
                request.type = .eip7702
                request.authorizationList = [try await authorizing(nonce)]
            }
            if request.gasLimit == nil {
                var call = JSONObject()
                call["from"] = .string(from.lowercased)
                if let to = request.to { call["to"] = .string(to.lowercased) }
                call["value"] = .string(request.value.hexQuantity)
                if !request.data.isEmpty { call["data"] = .string(Hex.encode(request.data)) }
                // The node charges each tuple (EIP-7702: 25,000 gas per authorization) and runs the call
                // with the delegations in place.
                if !request.authorizationList.isEmpty {
                    call["type"] = .string(request.type.hexQuantity)
                    call["authorizationList"] = .array(request.authorizationList.map(\.json))
                }
                request = request.filling(gasLimit: try await node.estimateGas(call))
            }
            switch request.type {
            case .legacy, .eip2930:
                if request.gasPrice == nil { request = request.filling(gasPrice: try await node.gasPrice()) }
            case .eip1559, .eip7702, .roninSponsored:
                if request.maxFeePerGas == nil || request.maxPriorityFeePerGas == nil {
                    let tip = try await node.maxPriorityFeePerGas()
                    let baseFee = try await node.latestBaseFee() ?? .zero
                    guard let maxFee = baseFee.multipliedAdding(2, 0)?.adding(tip) else {
                        throw SignerError.backendFailure("node fee values overflow")
                    }
                    request = request.filling(maxFeePerGas: maxFee, maxPriorityFeePerGas: tip)
                }
            }
        } catch let error as NodeError {
            throw .backendFailure("node: \(error)")
        } catch let error as SignerError {
            throw error
        } catch {
            throw .backendFailure("\(error)")
        }
        return request
    }
}
