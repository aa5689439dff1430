import EthereumPrimitives
import Foundation

/// What one resolved action really does: the chain, method and account, and the decoded intent (token,
/// amount, spender or recipient, deadline), with warnings. Computed once per action by the dispatcher
/// (``RpcDispatcher/preview(actions:)``, and ``ResolvedRequest/preview`` for policies) before anything is
/// signed.
public struct SigningPreview: Sendable, Hashable {
    /// Position in the action list.
    public let index: Int
    /// The CAIP-2 chain.
    public let chain: ChainID
    /// The chain's name when it is a known chain (`Base`), else `nil`.
    public let chainName: String?
    /// The method.
    public let method: RpcMethod
    /// The signing account.
    public let account: Address
    /// What the action does.
    public var kind: PreviewKind
    /// The contract called (a transaction's `to`) or the typed data's `verifyingContract`.
    public var contract: Address?
    /// The 4-byte selector of a contract call.
    public var selector: [UInt8]?
    /// The native value a transaction moves, in wei.
    public var nativeValue: UInt256 = .zero
    /// Every token amount the action moves or allows (a batch permit lists several); the first is
    /// ``token``/``amount``.
    public var tokens: [TokenAmount] = []
    /// Who may spend (an approval's or permit's spender).
    public var spender: Address?
    /// Who receives (a transfer's recipient, a native transfer's `to`).
    public var recipient: Address?
    /// The owner or payer named in the message (a Permit's `owner`, an authorization's `from`).
    public var owner: Address?
    /// When the signature or allowance stops being valid, in Unix seconds (the earliest, when several).
    public var deadline: UInt256?
    /// When an ERC-3009 authorization starts being valid, in Unix seconds.
    public var validAfter: UInt256?
    /// The message text (or 0x-hex when not UTF-8) of a `personal_sign`, abbreviated.
    public var message: String?
    /// Decoded fields: a SIWE message's fields, other typed data's field tree, or what an ERC-7730
    /// descriptor rendered.
    public var fields: [PreviewField] = []
    /// The intent an ERC-7730 descriptor gives (`Send`, `Approve`), when one rendered the action.
    public var descriptorIntent: String?
    /// What to look at twice.
    public var warnings: [PreviewWarning] = []
    /// The EIP-7702 delegations a type-4 transaction sets, in list order.
    public var delegations: [PreviewDelegation] = []
    /// For a ``PreviewKind/batchedCalls`` transaction: the preview of each call it runs, in order.
    public var calls: [SigningPreview] = []
    /// For `ronin_sponsorTransaction`: whose transaction the payer (``account``) pays for, how much at most and
    /// until when; the call itself is described by the other fields.
    public var sponsorship: PreviewSponsorship?

    /// A preview with only the routing facts; decoders fill the rest.
    public init(index: Int, chain: ChainID, chainName: String?, method: RpcMethod, account: Address, kind: PreviewKind)
    {
        self.index = index
        self.chain = chain
        self.chainName = chainName
        self.method = method
        self.account = account
        self.kind = kind
    }

    /// Makes this the preview of a batch running `calls`: kind ``PreviewKind/batchedCalls``, the calls'
    /// warnings added to its own (once each).
    mutating func batch(_ calls: [SigningPreview]) {
        kind = .batchedCalls
        self.calls = calls
        for warning in calls.flatMap(\.warnings) where !warnings.contains(warning) { warnings.append(warning) }
        warnings.removeAll { $0 == .unrecognized }
        if calls.contains(where: { $0.warnings.contains(.unrecognized) }) { warnings.append(.unrecognized) }
    }

    /// The first token involved.
    public var token: Address? { tokens.first?.token }
    /// The first token amount, in base units.
    public var amount: UInt256? { tokens.first?.amount }
    /// Whether the preview decoded the intent, or a descriptor rendered it.
    public var isRecognized: Bool { kind.isRecognized || descriptorIntent != nil }

    /// The deadline as an ISO 8601 UTC date (`2026-12-02T03:30:00Z`), or `nil` when there is none or it is
    /// beyond year 9999 (no ISO 8601 date; `far-deadline` flags it and ``deadline`` keeps the seconds).
    public var deadlineText: String? { deadline.flatMap(Self.isoDate) }

    /// `seconds` since 1970 as ISO 8601 UTC, or `nil` beyond 9999-12-31T23:59:59Z.
    public static func isoDate(_ seconds: UInt256) -> String? {
        guard let value = seconds.uint64, value <= 253_402_300_799 else { return nil }
        return utcDate(seconds)
    }

    /// `seconds` since 1970 as ISO 8601 UTC, or `after 9999-12-31 (unix <seconds>)` when it is beyond year 9999.
    public static func utcDate(_ seconds: UInt256) -> String {
        guard let value = seconds.uint64, value <= 253_402_300_799 else {
            return "after 9999-12-31 (unix \(seconds.decimalString))"
        }
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(value)))
    }

    /// One human-readable line: `action[0] Base (eip155:8453) eth_signTypedData_v4 by 0x… — permit2-transfer:
    /// 1.000000 USDC to spender 0x…, deadline 2026-… [warnings: unlimited-amount]`.
    public var line: String {
        var text = "action[\(index)] \(chainName.map { "\($0) (\(chain))" } ?? chain.description) \(method.rawValue)"
        text += " by \(account.checksummed): \(kind.rawValue)"
        var parts: [String] = []
        if let descriptorIntent { parts.append("\"\(EchoedText.abbreviated(descriptorIntent))\"") }
        if !tokens.isEmpty { parts.append(tokens.map(\.display).joined(separator: " + ")) }
        if !nativeValue.isZero || kind == .nativeTransfer {
            parts.append("\(DecimalFormat.string(nativeValue, decimals: 18)) native (\(nativeValue.decimalString) wei)")
        }
        if let spender { parts.append("spender \(spender.checksummed)") }
        if let recipient { parts.append("to \(recipient.checksummed)") }
        if let owner, owner != account { parts.append("owner \(owner.checksummed)") }
        if let contract, kind != .nativeTransfer { parts.append("contract \(contract.checksummed)") }
        if let selector { parts.append("selector \(Hex.encode(selector))") }
        if let deadline { parts.append("until \(Self.utcDate(deadline))") }
        if let message { parts.append("text \"\(message)\"") }
        for delegation in delegations { parts.append(delegation.text) }
        if let sponsorship { parts.append(sponsorship.text) }
        for field in fields.prefix(8) { parts.append("\(field.label)=\(field.value)") }
        for (position, call) in calls.enumerated() { parts.append("call[\(position)]: \(call.callText)") }
        if fields.count > 8 { parts.append("… \(fields.count - 8) more fields") }
        if !parts.isEmpty { text += " " + parts.joined(separator: ", ") }
        if !warnings.isEmpty { text += " [warnings: \(warnings.map(\.rawValue).joined(separator: ", "))]" }
        return text
    }

    /// One call of a batch as the batch's line shows it: kind and what it moves, to whom.
    var callText: String {
        let line = self.line
        guard let colon = line.range(of: ": ") else { return kind.rawValue }
        return String(line[colon.upperBound...])
    }

    /// The JSON object of `signerkit preview --json`.
    public var json: JSONValue {
        var object = JSONObject([
            "index": .number(String(index)), "chainId": .string(chain.description),
            "chainName": chainName.map(JSONValue.string) ?? .null, "method": .string(method.rawValue),
            "account": .string(account.checksummed), "kind": .string(kind.rawValue),
        ])
        object["token"] = token.map { .string($0.checksummed) } ?? .null
        // `amount` is the decimal amount in base units: of the token, or for a native transfer in wei.
        let moved = amount ?? (kind == .nativeTransfer ? nativeValue : nil)
        object["amount"] = moved.map { .string($0.decimalString) } ?? .null
        if let formatted = tokens.first?.formatted { object["amountFormatted"] = .string(formatted) }
        if tokens.count > 1 {
            object["tokens"] = .array(
                tokens.map {
                    .object(
                        JSONObject([
                            "token": .string($0.token.checksummed), "amount": .string($0.amount.decimalString),
                            "amountFormatted": $0.formatted.map(JSONValue.string) ?? .null,
                        ]))
                })
        }
        if let spender { object["spender"] = .string(spender.checksummed) }
        if let recipient { object["recipient"] = .string(recipient.checksummed) }
        if let owner { object["owner"] = .string(owner.checksummed) }
        if let contract { object["contract"] = .string(contract.checksummed) }
        if let selector { object["selector"] = .string(Hex.encode(selector)) }
        if !nativeValue.isZero { object["value"] = .string(nativeValue.decimalString) }
        object["deadline"] = deadlineText.map(JSONValue.string) ?? .null
        if let deadline { object["deadlineSeconds"] = .string(deadline.decimalString) }
        if let validAfter { object["validAfter"] = .string(Self.utcDate(validAfter)) }
        if let message { object["message"] = .string(message) }
        if let descriptorIntent { object["intent"] = .string(descriptorIntent) }
        if !fields.isEmpty {
            object["fields"] = .array(
                fields.map { .object(JSONObject(["label": .string($0.label), "value": .string($0.value)])) })
        }
        if !delegations.isEmpty { object["delegations"] = .array(delegations.map(\.json)) }
        if let sponsorship { object["sponsorship"] = sponsorship.json }
        if !calls.isEmpty { object["calls"] = .array(calls.map(\.json)) }
        object["warnings"] = .array(warnings.map { .string($0.rawValue) })
        return .object(object)
    }
}
