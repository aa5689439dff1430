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
        "requireRecognized", "signInOrigins", "allowedDelegates",
    ]

    /// The policies of a policy file's JSON text, in a fixed order (chains, methods, value, fees, gas, then
    /// the intent policies). `now` is the clock of ``MaxValidity``.
    public static func policies(jsonText: String, now: @escaping @Sendable () -> Date = { Date() })
        throws(PolicyFileError) -> [any ActionPolicy]
    {
        let root: JSONValue
        do { root = try JSONValue(parsing: jsonText) } catch { throw .init(path: "", problem: "\(error)") }
        guard case .object(let object) = root else { throw .init(path: "", problem: "expected an object") }
        if let unknown = object.keys.first(where: { !members.contains($0) }) {
            throw .init(
                path: EchoedText.abbreviated(unknown),
                problem: "unknown policy (known: \(members.joined(separator: ", ")))")
        }
        var policies: [any ActionPolicy] = []
        if let value = object["allowedChains"] {
            var chains: Set<ChainID> = []
            for (i, text) in try strings(value, "allowedChains").enumerated() {
                do { chains.insert(try ChainID(text)) } catch {
                    throw .init(path: "allowedChains[\(i)]", problem: "\(error)")
                }
            }
            policies.append(AllowedChains(chains))
        }
        if let value = object["allowedMethods"] {
            var methods: Set<RpcMethod> = []
            for (i, text) in try strings(value, "allowedMethods").enumerated() {
                guard let method = RpcMethod(rawValue: text) else {
                    throw .init(path: "allowedMethods[\(i)]", problem: "unknown method \(EchoedText.abbreviated(text))")
                }
                methods.insert(method)
            }
            policies.append(AllowedMethods(methods))
        }
        if let value = object["nativeValueCap"] {
            policies.append(NativeValueCap(maximumWei: try uint(value, "nativeValueCap")))
        }
        if let value = object["feeCap"] {
            guard case .object(let fee) = value else { throw .init(path: "feeCap", problem: "expected an object") }
            let allowed = ["maxFeePerGas", "maxPriorityFeePerGas", "maxTotalFee"]
            if let unknown = fee.keys.first(where: { !allowed.contains($0) }) {
                throw .init(path: "feeCap.\(EchoedText.abbreviated(unknown))", problem: "unknown member")
            }
            policies.append(
                FeeCap(
                    maxFeePerGas: try fee["maxFeePerGas"].map { (v) throws(PolicyFileError) in
                        try uint(v, "feeCap.maxFeePerGas")
                    },
                    maxPriorityFeePerGas: try fee["maxPriorityFeePerGas"].map { (v) throws(PolicyFileError) in
                        try uint(v, "feeCap.maxPriorityFeePerGas")
                    },
                    maxTotalFee: try fee["maxTotalFee"].map { (v) throws(PolicyFileError) in
                        try uint(v, "feeCap.maxTotalFee")
                    }))
        }
        if let value = object["gasLimitCap"] {
            policies.append(GasLimitCap(maximumGas: try uint(value, "gasLimitCap")))
        }
        let refuseOthers = try object["refuseUncappedTokens"].map { (v) throws(PolicyFileError) in
            try bool(v, "refuseUncappedTokens")
        }
        if let value = object["tokenSpendCap"] {
            guard case .array(let list) = value else {
                throw .init(path: "tokenSpendCap", problem: "expected an array")
            }
            var caps: [TokenSpendCap.Cap] = []
            for (i, entry) in list.enumerated() {
                let at = "tokenSpendCap[\(i)]"
                guard case .object(let cap) = entry else { throw .init(path: at, problem: "expected an object") }
                guard let chainText = cap["chainId"]?.stringValue else {
                    throw .init(path: at + ".chainId", problem: "expected a CAIP-2 string")
                }
                let chain: ChainID
                do { chain = try ChainID(chainText) } catch { throw .init(path: at + ".chainId", problem: "\(error)") }
                let token = try address(cap["token"], at + ".token")
                guard let maximum = cap["maximum"] else { throw .init(path: at + ".maximum", problem: "missing") }
                caps.append(TokenSpendCap.Cap(chain: chain, token: token, maximum: try uint(maximum, at + ".maximum")))
            }
            policies.append(TokenSpendCap(caps, refusesOtherTokens: refuseOthers ?? false))
        } else if refuseOthers == true {
            policies.append(TokenSpendCap([], refusesOtherTokens: true))
        }
        if let value = object["noUnlimitedApprovals"], try bool(value, "noUnlimitedApprovals") {
            policies.append(NoUnlimitedApprovals())
        }
        if let value = object["allowedSpenders"] {
            policies.append(AllowedSpenders(try addresses(value, "allowedSpenders")))
        }
        if let value = object["allowedRecipients"] {
            policies.append(AllowedRecipients(try addresses(value, "allowedRecipients")))
        }
        if let value = object["maxValiditySeconds"] {
            guard let seconds = try uint(value, "maxValiditySeconds").uint64 else {
                throw .init(path: "maxValiditySeconds", problem: "too large")
            }
            policies.append(MaxValidity(maximumSeconds: seconds, now: now))
        }
        if let value = object["requireRecognized"] {
            switch value {
            case .bool(true): policies.append(RequireRecognized())
            case .bool(false): break
            case .object(let options):
                if let unknown = options.keys.first(where: { $0 != "allow" }) {
                    throw .init(path: "requireRecognized.\(EchoedText.abbreviated(unknown))", problem: "unknown member")
                }
                var kinds: Set<PreviewKind> = []
                for (i, text) in try strings(options["allow"] ?? .array([]), "requireRecognized.allow").enumerated() {
                    guard let kind = PreviewKind(rawValue: text) else {
                        throw .init(
                            path: "requireRecognized.allow[\(i)]",
                            problem: "unknown kind \(EchoedText.abbreviated(text))")
                    }
                    kinds.insert(kind)
                }
                policies.append(RequireRecognized(allowing: kinds))
            default: throw .init(path: "requireRecognized", problem: "expected true, false or {\"allow\":[kinds]}")
            }
        }
        if let value = object["signInOrigins"] {
            var origins: [SignInOrigin] = []
            for (i, text) in try strings(value, "signInOrigins").enumerated() {
                do { origins.append(try SignInOrigin(text)) } catch {
                    throw .init(path: "signInOrigins[\(i)]", problem: "\(error)")
                }
            }
            policies.append(SignInDomainBinding(origins: origins))
        }
        if let value = object["allowedDelegates"] { policies.append(try AllowedDelegates(policyFileValue: value)) }
        return policies
    }

    private static func strings(_ value: JSONValue, _ path: String) throws(PolicyFileError) -> [String] {
        guard case .array(let list) = value else { throw .init(path: path, problem: "expected an array of strings") }
        var result: [String] = []
        for (i, element) in list.enumerated() {
            guard case .string(let text) = element else {
                throw .init(path: "\(path)[\(i)]", problem: "expected a string")
            }
            result.append(text)
        }
        return result
    }

    private static func uint(_ value: JSONValue, _ path: String) throws(PolicyFileError) -> UInt256 {
        switch value {
        case .string(let text), .number(let text):
            do { return try UInt256(text: text) } catch { throw .init(path: path, problem: "\(error)") }
        default: throw .init(path: path, problem: "expected a decimal or 0x-hex integer (a string)")
        }
    }

    private static func bool(_ value: JSONValue, _ path: String) throws(PolicyFileError) -> Bool {
        guard case .bool(let flag) = value else { throw .init(path: path, problem: "expected true or false") }
        return flag
    }

    private static func address(_ value: JSONValue?, _ path: String) throws(PolicyFileError) -> Address {
        guard let text = value?.stringValue else { throw .init(path: path, problem: "expected an address string") }
        do { return try Address(text) } catch { throw .init(path: path, problem: "\(error)") }
    }

    private static func addresses(_ value: JSONValue, _ path: String) throws(PolicyFileError) -> Set<Address> {
        var result: Set<Address> = []
        for (i, text) in try strings(value, path).enumerated() {
            do { result.insert(try Address(text)) } catch { throw .init(path: "\(path)[\(i)]", problem: "\(error)") }
        }
        return result
    }
}
