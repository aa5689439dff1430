import EthereumPrimitives
import EthereumTransactions
import Foundation

/// What a payer sponsors (`ronin_sponsorTransaction`), judged before the payer signs: which contracts and
/// functions, how much gas at what fee cap, and how long the sponsorship may stay usable. Other methods pass.
///
/// A game studio pays its players' gas only for its own game: list its contracts (and their functions) in
/// ``allowedCalls``; a player's transaction to anything else, a contract creation (unless allowed), more gas
/// or a higher fee cap than the limits, an `expiredTime` already past or further ahead than
/// ``maximumExpirySeconds``, and an `expiredTime` of 0 (never expires, unless ``allowsNoExpiry``) are refused.
public struct RoninSponsorPolicy: ActionPolicy {
    /// One contract a payer sponsors calls to.
    public struct AllowedCall: Sendable, Hashable {
        /// The contract (`to`).
        public let contract: Address
        /// The 4-byte function selectors allowed, or `nil` for any call (with or without calldata).
        public let selectors: Set<[UInt8]>?

        /// Calls to `contract`, limited to `selectors` when given.
        public init(contract: Address, selectors: Set<[UInt8]>? = nil) {
            self.contract = contract
            self.selectors = selectors
        }
    }

    /// The contracts (and functions) sponsored, or `nil` for any contract.
    public let allowedCalls: [Address: AllowedCall]?
    /// Whether a contract creation (no `to`) is sponsored.
    public let allowsContractCreation: Bool
    /// The largest gas limit sponsored, or `nil` for any.
    public let maximumGas: UInt256?
    /// The highest fee cap (`maxFeePerGas`, wei) sponsored, or `nil` for any.
    public let maximumFeePerGas: UInt256?
    /// How far ahead of now `expiredTime` may be, in seconds.
    public let maximumExpirySeconds: UInt64
    /// Whether `expiredTime` 0 (never expires) is sponsored.
    public let allowsNoExpiry: Bool
    /// The wall clock `expiredTime` is judged against (inject a fixed one in tests).
    public let now: @Sendable () -> Date

    /// A policy; by default any contract, no creation, no gas or fee limit, an hour of validity at most and
    /// no open-ended sponsorship.
    public init(
        allowedCalls: [AllowedCall]? = nil, allowsContractCreation: Bool = false, maximumGas: UInt256? = nil,
        maximumFeePerGas: UInt256? = nil, maximumExpirySeconds: UInt64 = 3600, allowsNoExpiry: Bool = false,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.allowedCalls = allowedCalls.map {
            Dictionary($0.map { ($0.contract, $0) }, uniquingKeysWith: { a, _ in a })
        }
        self.allowsContractCreation = allowsContractCreation
        self.maximumGas = maximumGas
        self.maximumFeePerGas = maximumFeePerGas
        self.maximumExpirySeconds = maximumExpirySeconds
        self.allowsNoExpiry = allowsNoExpiry
        self.now = now
    }

    /// Fails a sponsorship outside the policy, naming the field.
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        guard case .sponsorship(let transaction, _) = request.payload else { return .pass }
        if let refusal = expiryRefusal(transaction.expiredTime ?? 0) ?? callRefusal(transaction) {
            return .fail(reason: refusal)
        }
        if let maximumGas, let gas = transaction.gasLimit, gas > maximumGas {
            return .fail(reason: "gas \(gas.decimalString) is above the sponsored maximum \(maximumGas.decimalString)")
        }
        if let maximumFeePerGas, let fee = transaction.maxFeePerGas, fee > maximumFeePerGas {
            return .fail(
                reason:
                    "maxFeePerGas \(fee.decimalString) wei is above the sponsored maximum \(maximumFeePerGas.decimalString) wei"
            )
        }
        return .pass
    }

    private func expiryRefusal(_ expiredTime: UInt64) -> String? {
        guard expiredTime != 0 else {
            return allowsNoExpiry
                ? nil : "expiredTime 0 never expires (the policy does not allow open-ended sponsorship)"
        }
        let nowSeconds = UInt64(max(0, now().timeIntervalSince1970))
        if expiredTime <= nowSeconds {
            return "expiredTime \(expiredTime) (\(SigningPreview.utcDate(UInt256(expiredTime)))) has already passed"
        }
        if expiredTime - nowSeconds > maximumExpirySeconds {
            return "expiredTime \(expiredTime) is \(expiredTime - nowSeconds) s ahead, more than the sponsored "
                + "\(maximumExpirySeconds) s"
        }
        return nil
    }

    private func callRefusal(_ transaction: TransactionRequest) -> String? {
        guard let to = transaction.to else {
            return allowsContractCreation ? nil : "to: a contract creation is not sponsored"
        }
        guard let allowedCalls else { return nil }
        guard let allowed = allowedCalls[to] else { return "to: \(to.checksummed) is not a sponsored contract" }
        guard let selectors = allowed.selectors else { return nil }
        guard transaction.data.count >= 4 else {
            return "data: a call to \(to.checksummed) without a function selector is not sponsored"
        }
        let selector = Array(transaction.data[0..<4])
        guard selectors.contains(selector) else {
            return "data: function \(Hex.encode(selector)) of \(to.checksummed) is not sponsored"
        }
        return nil
    }
}
