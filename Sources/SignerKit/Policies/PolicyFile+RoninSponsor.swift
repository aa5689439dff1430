import EthereumPrimitives
import Foundation

extension PolicyFile {
    /// `"roninSponsor": {"allowedCalls"?: [{"contract": A, "selectors"?: ["0x…"]}], "allowContractCreation"?: B,
    /// "maxGas"?: N, "maxFeePerGas"?: N, "maxExpirySeconds"?: N (default 3600), "allowNoExpiry"?: B}`.
    static func roninSponsorPolicy(_ value: Reader, now: @escaping @Sendable () -> Date) throws(PolicyFileError)
        -> RoninSponsorPolicy
    {
        try value.object(allowing: [
            "allowedCalls", "allowContractCreation", "maxGas", "maxFeePerGas", "maxExpirySeconds", "allowNoExpiry",
        ])
        let calls = try value["allowedCalls"].ifPresent?.elements().map {
            (call) throws(PolicyFileError) -> RoninSponsorPolicy.AllowedCall in
            try call.object(allowing: ["contract", "selectors"])
            let selectors = try call["selectors"].ifPresent?.elements().map { (item) throws(PolicyFileError) in
                let bytes = try item.string { (text) throws(HexError) in try Hex.decode(text) }
                guard bytes.count == 4 else { throw item.fail("a function selector is 4 bytes, got \(bytes.count)") }
                return bytes
            }
            return .init(contract: try call["contract"].address(), selectors: selectors.map(Set.init))
        }
        let expiry = try value["maxExpirySeconds"].ifPresent?.uint256()
        guard expiry.map({ $0.uint64 != nil }) ?? true else { throw value["maxExpirySeconds"].fail("too large") }
        return RoninSponsorPolicy(
            allowedCalls: calls, allowsContractCreation: try value["allowContractCreation"].ifPresent?.bool() ?? false,
            maximumGas: try value["maxGas"].ifPresent?.uint256(),
            maximumFeePerGas: try value["maxFeePerGas"].ifPresent?.uint256(),
            maximumExpirySeconds: expiry?.uint64 ?? 3600,
            allowsNoExpiry: try value["allowNoExpiry"].ifPresent?.bool() ?? false,
            now: now)
    }

    /// `"roninSponsorQuota": {"windowSeconds"?: N (default 86400), "maxTransactions"?: N, "maxGasCost"?: WEI}`
    /// (at least one limit), counted in `store`.
    static func roninSponsorQuota(
        _ value: Reader, store: any UsageCounterStore, now: @escaping @Sendable () -> Date
    ) throws(PolicyFileError) -> RoninSponsorQuota {
        try value.object(allowing: ["windowSeconds", "maxTransactions", "maxGasCost"])
        let window = try value["windowSeconds"].ifPresent?.integer(in: 1...31_622_400) ?? 86_400
        let count = try value["maxTransactions"].ifPresent?.uint256()
        guard count.map({ $0.uint64 != nil }) ?? true else { throw value["maxTransactions"].fail("too large") }
        let cost = try value["maxGasCost"].ifPresent?.uint256()
        guard count != nil || cost != nil else { throw value.fail("expected maxTransactions or maxGasCost") }
        return RoninSponsorQuota(
            windowSeconds: UInt64(window), maximumTransactions: count?.uint64, maximumGasCost: cost, store: store,
            now: now)
    }
}
