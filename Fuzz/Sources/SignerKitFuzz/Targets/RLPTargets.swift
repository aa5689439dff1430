import EthereumPrimitives

/// RLP: what decodes is canonical, so encoding the item gives the input back.
enum RLPTargets {
    static let rlp = FuzzTarget(
        name: "rlp",
        summary: "RLP.decode: a decoded item re-encodes to exactly the input; bounded nesting"
    ) { bytes in
        do {
            let item = try RLP.decode(bytes)
            FuzzCheck.expect(RLP.encode(item) == bytes, "a decoded item re-encodes to other bytes")
            FuzzCheck.expect((try? RLP.decode(bytes, maxDepth: depth(item))) == item, "depth limit is off by one")
        } catch {
            FuzzCheck.boundedDescription(error)
        }
    }

    /// How many lists deep `item` nests (a byte string is 0).
    static func depth(_ item: RLPItem) -> Int {
        guard case .list(let items) = item else { return 0 }
        return 1 + (items.map(depth).max() ?? 0)
    }
}
