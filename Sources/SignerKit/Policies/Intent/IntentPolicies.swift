import EthereumPrimitives
import Foundation

/// Refuses unlimited amounts: any action whose preview carries `unlimited-amount` (an approval, permit
/// or transfer of at least 2^255, or the Permit2 `uint160` maximum; a DAI permit with `allowed` true).
public struct NoUnlimitedApprovals: ActionPolicy {
    /// The policy.
    public init() {}

    /// Fails actions with an unlimited amount.
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        let preview = request.preview
        guard preview.warnings.contains(.unlimitedAmount) else { return .pass }
        let token = preview.tokens.first { SigningPreviewer.isUnlimited($0.amount) }?.token
        return .fail(
            reason:
                "\(preview.kind.rawValue) of an unlimited amount\(token.map { " of \($0.checksummed)" } ?? "")"
                + (preview.spender.map { " to spender \($0.checksummed)" } ?? ""))
    }
}

/// Only these spenders: an approval, permit or Permit2 signature may name only a listed spender.
public struct AllowedSpenders: ActionPolicy {
    /// The allowed spenders.
    public let spenders: Set<Address>

    /// Allows `spenders`.
    public init(_ spenders: Set<Address>) { self.spenders = spenders }

    /// Fails actions naming another spender.
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        guard let spender = request.preview.spender, !spenders.contains(spender) else { return .pass }
        return .fail(reason: "spender \(spender.checksummed) of \(request.preview.kind.rawValue) is not allowed")
    }
}

/// Only these recipients: a native transfer, an ERC-20 transfer or `transferFrom`, and an ERC-3009
/// authorization may pay only a listed address.
public struct AllowedRecipients: ActionPolicy {
    /// The allowed recipients.
    public let recipients: Set<Address>

    /// Allows `recipients`.
    public init(_ recipients: Set<Address>) { self.recipients = recipients }

    /// Fails actions paying another address.
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        guard let recipient = request.preview.recipient, !recipients.contains(recipient) else { return .pass }
        return .fail(reason: "recipient \(recipient.checksummed) of \(request.preview.kind.rawValue) is not allowed")
    }
}

/// Signatures and allowances valid no further than `maximumSeconds` ahead: a permit's `deadline`, a Permit2
/// `expiration`/`sigDeadline`/`deadline`, an ERC-3009 `validBefore`, a SIWE `Expiration Time`. Actions
/// without a deadline (an ERC-20 `approve` never expires) pass; use ``NoUnlimitedApprovals`` and
/// ``TokenSpendCap`` for those.
public struct MaxValidity: ActionPolicy {
    /// The longest validity, in seconds from now.
    public let maximumSeconds: UInt64
    /// The clock (inject a fixed one in tests).
    public let now: @Sendable () -> Date

    /// Allows deadlines up to `maximumSeconds` after `now()`.
    public init(maximumSeconds: UInt64, now: @escaping @Sendable () -> Date = { Date() }) {
        self.maximumSeconds = maximumSeconds
        self.now = now
    }

    /// Fails deadlines further ahead.
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        guard let deadline = request.preview.deadline else { return .pass }
        let limit = UInt64(max(0, now().timeIntervalSince1970)) &+ maximumSeconds
        guard deadline > UInt256(limit) else { return .pass }
        return .fail(
            reason:
                "\(request.preview.kind.rawValue) is valid until \(SigningPreview.utcDate(deadline)), more than \(maximumSeconds) s ahead"
        )
    }
}

/// Refuses actions the preview cannot decode (an unknown contract call, unknown typed data, an arbitrary
/// message) and that no ERC-7730 descriptor renders, unless their kind is allowed.
public struct RequireRecognized: ActionPolicy {
    /// Unrecognised kinds allowed anyway (`message`, `typed-data`, `contract-call`).
    public let allowedKinds: Set<PreviewKind>

    /// Requires recognised actions, except for `allowedKinds`.
    public init(allowing allowedKinds: Set<PreviewKind> = []) { self.allowedKinds = allowedKinds }

    /// Fails unrecognised actions.
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        let preview = request.preview
        guard !preview.isRecognized, !allowedKinds.contains(preview.kind) else { return .pass }
        return .fail(reason: "the preview cannot tell what this \(preview.kind.rawValue) does (unrecognized)")
    }
}
