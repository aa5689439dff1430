import EthereumPrimitives
import EthereumTransactions

/// Only these EIP-7702 delegates: the policy an authorization must pass to be signed, and a rule on the
/// delegations a type-4 transaction carries.
///
/// An authorization hands the delegate's code full control of the signing account, so SignerKit signs
/// one only through ``PrehashSigner/signAuthorization(_:policy:)``, which requires this policy: the
/// delegate must be listed, and chain id 0 (valid on every chain, where the same address may hold other
/// code) needs ``allowsAnyChain``. As an ``ActionPolicy`` in a dispatcher it applies the same rules to
/// every tuple of a type-4 transaction's `authorizationList`; other actions pass.
public struct AllowedDelegates: ActionPolicy {
    /// The delegate addresses an authorization may name.
    public let delegates: Set<Address>
    /// Whether an authorization with chain id 0 (valid on every chain) may be signed.
    public let allowsAnyChain: Bool

    /// Allows `delegates`; chain id 0 only when `allowingAnyChain`.
    public init(_ delegates: Set<Address>, allowingAnyChain: Bool = false) {
        self.delegates = delegates
        self.allowsAnyChain = allowingAnyChain
    }

    /// `AllowedDelegates`.
    public var name: String { "AllowedDelegates" }

    /// Passes an authorization naming a listed delegate, on a named chain unless ``allowsAnyChain``.
    public func evaluate(_ authorization: Authorization) -> PolicyDecision {
        guard delegates.contains(authorization.address) else {
            return .fail(reason: "delegate \(authorization.address.checksummed) is not an allowed delegate")
        }
        guard allowsAnyChain || !authorization.isValidOnEveryChain else {
            return .fail(
                reason:
                    "chain id 0 makes the delegation to \(authorization.address.checksummed) valid on every chain; allow any chain explicitly"
            )
        }
        return .pass
    }

    /// Whether an authorization for `chainId` naming `delegate` would pass this policy: the same rule an
    /// authorization is evaluated by, applied to a tuple of that chain and delegate.
    public func allows(_ delegate: Address, chainId: UInt256) -> Bool {
        evaluate(Authorization(chainId: chainId, address: delegate, nonce: 0)) == .pass
    }

    /// The delegates an authorization for `chainId` may name: those ``allows(_:chainId:)`` passes.
    public func delegates(chainId: UInt256) -> Set<Address> {
        delegates.filter { allows($0, chainId: chainId) }
    }

    /// Fails a type-4 transaction whose `authorizationList` holds a tuple this policy would not sign
    /// (naming its position); every other action passes.
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        guard case .transaction(let transaction, _) = request.payload else { return .pass }
        for (i, tuple) in transaction.authorizationList.enumerated() {
            if case .fail(let reason) = evaluate(tuple.authorization) {
                return .fail(reason: "authorizationList[\(i)]: \(reason)")
            }
        }
        return .pass
    }
}

extension AllowedDelegates {
    /// The policy of a policy file's `allowedDelegates` member: an array of addresses, or
    /// `{"delegates":[addresses],"allowAnyChain":true|false}`.
    init(policyFile json: PolicyFile.Reader) throws(PolicyFileError) {
        switch json.value {
        case .array?: self.init(try PolicyFile.addresses(json), allowingAnyChain: false)
        case .object?:
            try json.object(allowing: ["delegates", "allowAnyChain"])
            self.init(
                try PolicyFile.addresses(json["delegates"]),
                allowingAnyChain: try json["allowAnyChain"].ifPresent?.bool() ?? false)
        default: throw json.fail("expected an array of addresses or {\"delegates\":[…],\"allowAnyChain\":…}")
        }
    }
}

extension PolicyFile {
    /// The ``AllowedDelegates`` policy of a policy file's JSON text (its `allowedDelegates` member), or
    /// `nil` when the file has none: then no authorization may be signed. The whole file is checked as
    /// ``policies(jsonText:now:usageStore:)`` checks it.
    public static func allowedDelegates(jsonText: String) throws(PolicyFileError) -> AllowedDelegates? {
        try policies(jsonText: jsonText).lazy.compactMap { $0 as? AllowedDelegates }.first
    }
}
