import EthereumPrimitives

extension PolicyFile {
    /// `"approvalRules": [{"name": N, "above"?: [{"chainId": C, "token": "native" | A, "amount": N}, …],
    /// "group": G, "required": M, "expiresSeconds"?: S (default 3600)}, …]`: each an ``ApprovalRule`` (without
    /// `above`, it holds every action). Names are distinct.
    static func approvalRules(_ list: Reader) throws(PolicyFileError) -> [ApprovalRule] {
        var names: Set<String> = []
        return try list.elements().map { (item) throws(PolicyFileError) -> ApprovalRule in
            try item.object(allowing: ["name", "above", "group", "required", "expiresSeconds"])
            let name = try item["name"].string()
            guard !name.isEmpty, name.count <= 64 else { throw item["name"].fail("expected 1 to 64 characters") }
            guard names.insert(name).inserted else {
                throw item["name"].fail("\(EchoedText.abbreviated(name).debugDescription) is used twice")
            }
            let thresholds = try item["above"].ifPresent?.elements().map {
                (entry) throws(PolicyFileError) -> ApprovalRule.Threshold in
                try entry.object(allowing: ["chainId", "token", "amount"])
                let asset: SpendLimit.Asset =
                    try entry["token"].string() == "native" ? .native : .token(try entry["token"].address())
                return ApprovalRule.Threshold(
                    chain: try entry["chainId"].chain(), asset: asset, above: try entry["amount"].uint256())
            }
            let group = try item["group"].string()
            guard !group.isEmpty else { throw item["group"].fail("empty") }
            return ApprovalRule(
                name, above: thresholds ?? [], group: group, required: try item["required"].integer(in: 1...100),
                lifetimeSeconds: UInt64(try item["expiresSeconds"].ifPresent?.integer(in: 60...2_592_000) ?? 3600))
        }
    }
}
