import EthereumPrimitives

/// The verdict of a policy on one action.
public enum PolicyDecision: Sendable, Equatable {
    /// The action may be signed.
    case pass
    /// The action must not be signed, for this reason.
    case fail(reason: String)
}

/// A rule evaluated on every resolved action before any backend is called.
public protocol ActionPolicy: Sendable {
    /// A short name shown in errors.
    var name: String { get }
    /// Decides on one action.
    func evaluate(_ request: ResolvedRequest) -> PolicyDecision
}

extension ActionPolicy {
    /// The type name.
    public var name: String { String(describing: type(of: self)) }
}

/// Composes policies: `RpcDispatcher { AllowedChains(…); if strict { NativeValueCap(…) } }`.
@resultBuilder
public enum PolicyBuilder {
    /// Collects policies.
    public static func buildExpression(_ policy: any ActionPolicy) -> [any ActionPolicy] { [policy] }
    /// Collects policies.
    public static func buildExpression(_ policies: [any ActionPolicy]) -> [any ActionPolicy] { policies }
    /// Concatenates.
    public static func buildBlock(_ components: [any ActionPolicy]...) -> [any ActionPolicy] {
        components.flatMap { $0 }
    }
    /// `if` without `else`.
    public static func buildOptional(_ component: [any ActionPolicy]?) -> [any ActionPolicy] { component ?? [] }
    /// `if`/`else`, first branch.
    public static func buildEither(first component: [any ActionPolicy]) -> [any ActionPolicy] { component }
    /// `if`/`else`, second branch.
    public static func buildEither(second component: [any ActionPolicy]) -> [any ActionPolicy] { component }
    /// `for` loops.
    public static func buildArray(_ components: [[any ActionPolicy]]) -> [any ActionPolicy] {
        components.flatMap { $0 }
    }
}

/// A policy from a closure.
public struct PolicyRule: ActionPolicy {
    /// Name shown in errors.
    public let name: String
    private let rule: @Sendable (ResolvedRequest) -> PolicyDecision

    /// Wraps `rule` under `name`.
    public init(_ name: String, _ rule: @escaping @Sendable (ResolvedRequest) -> PolicyDecision) {
        self.name = name
        self.rule = rule
    }

    /// Runs the closure.
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision { rule(request) }
}

/// Only these CAIP-2 chains.
public struct AllowedChains: ActionPolicy {
    /// The allowed chains.
    public let chains: Set<ChainID>

    /// Allows `chains`.
    public init(_ chains: Set<ChainID>) { self.chains = chains }

    /// Passes actions on an allowed chain.
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        chains.contains(request.action.chainId)
            ? .pass : .fail(reason: "chain \(request.action.chainId) is not allowed")
    }
}

/// Only these methods.
public struct AllowedMethods: ActionPolicy {
    /// The allowed methods.
    public let methods: Set<RpcMethod>

    /// Allows `methods`.
    public init(_ methods: Set<RpcMethod>) { self.methods = methods }

    /// Passes actions with an allowed method.
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        methods.contains(request.method) ? .pass : .fail(reason: "method \(request.method) is not allowed")
    }
}

/// At most this much native value (wei) per transaction.
public struct NativeValueCap: ActionPolicy {
    /// The cap in wei, inclusive.
    public let maximumWei: UInt256

    /// Caps each transaction's `value` at `maximumWei`.
    public init(maximumWei: UInt256) { self.maximumWei = maximumWei }

    /// Fails transactions whose value exceeds the cap.
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        let value = request.nativeValue
        return value <= maximumWei
            ? .pass : .fail(reason: "value \(value) wei exceeds the cap of \(maximumWei) wei")
    }
}
