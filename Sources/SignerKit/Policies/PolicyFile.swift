import EthereumPrimitives
import Foundation

/// Why a policy file was refused; `path` names the member (`tokenSpendCap[1].maximum`).
public struct PolicyFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the file.
    public let path: String
    /// What is wrong.
    public let problem: String

    /// An error.
    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    /// `policy file tokenSpendCap[1].maximum: …`.
    public var description: String { "policy file \(path.isEmpty ? "" : path + ": ")\(problem)" }
}

/// The JSON policy file: one object whose members each turn on one built-in policy (see
/// docs/DISPATCHER.md, "Policy files"). Unknown members are refused, so a typo never silently drops a rule.
///
/// ```json
/// {"allowedChains":["eip155:8453"],"tokenSpendCap":[{"chainId":"eip155:8453","token":"0x…","maximum":"5000000"}],
///  "noUnlimitedApprovals":true,"maxValiditySeconds":3600,"requireRecognized":{"allow":["message"]},
///  "signInOrigins":["https://example.com"]}
/// ```
public enum PolicyFile {
    /// The members a policy file may have.
    public static let members: [String] = [
        "allowedChains", "allowedMethods", "nativeValueCap", "feeCap", "gasLimitCap", "tokenSpendCap",
        "refuseUncappedTokens", "noUnlimitedApprovals", "allowedSpenders", "allowedRecipients", "maxValiditySeconds",
        "requireRecognized", "signInOrigins", "allowedDelegates", "roninSponsor", "roninSponsorQuota", "spendLimits",
        "approvalRules",
    ]

    /// The policies of a policy file's JSON text, in a fixed order (chains, methods, value, fees, gas, then
    /// the intent policies, then sponsorship). `now` is the wall clock of ``MaxValidity`` and of the Ronin sponsor
    /// policy and quota; `usageStore` keeps the quota's counts (in this process's memory when `nil`: the signer
    /// service passes its SQLite or PostgreSQL store).
    public static func policies(
        jsonText: String, now: @escaping @Sendable () -> Date = { Date() },
        usageStore: (any UsageCounterStore)? = nil
    ) throws(PolicyFileError) -> [any ActionPolicy] {
        let root = try Reader(parsing: jsonText)
        try root.object(allowing: members, kind: "policy")
        var policies: [any ActionPolicy] = []
        if let list = root["allowedChains"].ifPresent {
            policies.append(
                AllowedChains(Set(try list.elements().map { (item) throws(PolicyFileError) in try item.chain() })))
        }
        if let list = root["allowedMethods"].ifPresent {
            var methods: Set<RpcMethod> = []
            for item in try list.elements() {
                let text = try item.string()
                guard let method = RpcMethod(rawValue: text) else {
                    throw item.fail("unknown method \(EchoedText.abbreviated(text))")
                }
                methods.insert(method)
            }
            policies.append(AllowedMethods(methods))
        }
        if let value = root["nativeValueCap"].ifPresent {
            policies.append(NativeValueCap(maximumWei: try value.uint256()))
        }
        if let fee = root["feeCap"].ifPresent {
            try fee.object(allowing: ["maxFeePerGas", "maxPriorityFeePerGas", "maxTotalFee"])
            policies.append(
                FeeCap(
                    maxFeePerGas: try fee["maxFeePerGas"].ifPresent?.uint256(),
                    maxPriorityFeePerGas: try fee["maxPriorityFeePerGas"].ifPresent?.uint256(),
                    maxTotalFee: try fee["maxTotalFee"].ifPresent?.uint256()))
        }
        if let value = root["gasLimitCap"].ifPresent {
            policies.append(GasLimitCap(maximumGas: try value.uint256()))
        }
        let refuseOthers = try root["refuseUncappedTokens"].ifPresent?.bool()
        if let list = root["tokenSpendCap"].ifPresent {
            let caps = try list.elements().map { (cap) throws(PolicyFileError) in
                try cap.object()
                return TokenSpendCap.Cap(
                    chain: try cap["chainId"].chain(), token: try cap["token"].address(),
                    maximum: try cap["maximum"].uint256())
            }
            policies.append(TokenSpendCap(caps, refusesOtherTokens: refuseOthers ?? false))
        } else if refuseOthers == true {
            policies.append(TokenSpendCap([], refusesOtherTokens: true))
        }
        if try root["noUnlimitedApprovals"].ifPresent?.bool() == true {
            policies.append(NoUnlimitedApprovals())
        }
        if let list = root["allowedSpenders"].ifPresent {
            policies.append(AllowedSpenders(try addresses(list)))
        }
        if let list = root["allowedRecipients"].ifPresent {
            policies.append(AllowedRecipients(try addresses(list)))
        }
        if let value = root["maxValiditySeconds"].ifPresent {
            guard let seconds = try value.uint256().uint64 else { throw value.fail("too large") }
            policies.append(MaxValidity(maximumSeconds: seconds, now: now))
        }
        if let value = root["requireRecognized"].ifPresent {
            switch value.value {
            case .bool(true): policies.append(RequireRecognized())
            case .bool(false): break
            case .object:
                try value.object(allowing: ["allow"])
                var kinds: Set<PreviewKind> = []
                for item in try value["allow"].ifPresent?.elements() ?? [] {
                    let text = try item.string()
                    guard let kind = PreviewKind(rawValue: text) else {
                        throw item.fail("unknown kind \(EchoedText.abbreviated(text))")
                    }
                    kinds.insert(kind)
                }
                policies.append(RequireRecognized(allowing: kinds))
            default: throw value.fail("expected true, false or {\"allow\":[kinds]}")
            }
        }
        if let list = root["signInOrigins"].ifPresent {
            policies.append(
                SignInDomainBinding(
                    origins: try list.elements().map { (item) throws(PolicyFileError) in
                        try item.string { (text) throws(SignInOriginError) in try SignInOrigin(text) }
                    }))
        }
        if let value = root["allowedDelegates"].ifPresent { policies.append(try AllowedDelegates(policyFile: value)) }
        if let value = root["roninSponsor"].ifPresent { policies.append(try roninSponsorPolicy(value, now: now)) }
        if let value = root["roninSponsorQuota"].ifPresent {
            policies.append(
                try roninSponsorQuota(value, store: usageStore ?? MemoryUsageCounterStore(), now: now))
        }
        if let value = root["spendLimits"].ifPresent {
            policies +=
                try spendLimits(value, store: usageStore ?? MemoryUsageCounterStore(), now: now)
                as [any ActionPolicy]
        }
        if let list = root["approvalRules"].ifPresent { policies += try approvalRules(list) as [any ActionPolicy] }
        return policies
    }

    /// `"spendLimits": {"windowSeconds"?: N (default 86400), "rolling"?: B, "per"?: "account" | "client",
    /// "holdWhenExceeded"?: {"name": R, "group": G, "required": M, "expiresSeconds"?: S}, "limits": [{"chainId": C,
    /// "token": "native" | A, "maximum": N}, …]}` (or an array of such objects, one limit each), summed in `store`.
    static func spendLimits(_ value: Reader, store: any UsageCounterStore, now: @escaping @Sendable () -> Date)
        throws(PolicyFileError) -> [SpendLimit]
    {
        guard case .array = value.value else { return [try spendLimit(value, store: store, now: now)] }
        let limits = try value.elements().map { (item) throws(PolicyFileError) in
            try spendLimit(item, store: store, now: now)
        }
        guard !limits.isEmpty else { throw value.fail("expected at least one limit") }
        return limits
    }

    /// One object of `spendLimits`.
    static func spendLimit(_ value: Reader, store: any UsageCounterStore, now: @escaping @Sendable () -> Date)
        throws(PolicyFileError) -> SpendLimit
    {
        try value.object(allowing: ["windowSeconds", "rolling", "per", "holdWhenExceeded", "limits"])
        let window = try value["windowSeconds"].ifPresent?.integer(in: 60...31_622_400) ?? 86_400
        let limits = try value["limits"].elements().map { (item) throws(PolicyFileError) -> SpendLimit.Limit in
            try item.object(allowing: ["chainId", "token", "maximum"])
            let token = try item["token"].string()
            let asset: SpendLimit.Asset =
                token == "native" ? .native : .token(try item["token"].address())
            return SpendLimit.Limit(
                chain: try item["chainId"].chain(), asset: asset, maximum: try item["maximum"].uint256())
        }
        guard !limits.isEmpty else { throw value["limits"].fail("expected at least one limit") }
        var scope = SpendLimit.Scope.account
        if let per = value["per"].ifPresent {
            let text = try per.string()
            guard let found = SpendLimit.Scope(rawValue: text) else {
                throw per.fail(
                    "expected \"account\" or \"client\", not \(EchoedText.abbreviated(text).debugDescription)")
            }
            scope = found
        }
        var hold: ApprovalRequirement?
        if let item = value["holdWhenExceeded"].ifPresent {
            try item.object(allowing: ["name", "group", "required", "expiresSeconds"])
            let name = try item["name"].string()
            let group = try item["group"].string()
            guard !name.isEmpty, !group.isEmpty else { throw item.fail("name and group must not be empty") }
            hold = ApprovalRequirement(
                rule: name, group: group, required: try item["required"].integer(in: 1...100),
                lifetimeSeconds: UInt64(try item["expiresSeconds"].ifPresent?.integer(in: 60...2_592_000) ?? 3600))
        }
        return SpendLimit(
            limits, windowSeconds: UInt64(window), rolling: try value["rolling"].ifPresent?.bool() ?? false,
            per: scope, holdWhenExceeded: hold, store: store, now: now)
    }

    /// A policy file's reader.
    typealias Reader = JSONReader<PolicyFileError>

    /// An array of addresses.
    static func addresses(_ list: Reader) throws(PolicyFileError) -> Set<Address> {
        Set(try list.elements().map { (item) throws(PolicyFileError) in try item.address() })
    }
}

extension PolicyFileError: LocatedJSONError {}
