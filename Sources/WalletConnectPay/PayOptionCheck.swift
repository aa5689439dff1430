import EthereumPrimitives
import Foundation
import SignerKit

/// "Pay signs only what it shows": every action of an option is checked against the option (its asset,
/// amount, account, chain and expiry) from the actions' `SigningPreview`s before anything is signed.
///
/// - ERC-3009 and Permit2 actions (allowances and signature transfers): every token is the option's
///   asset, the amounts together are at most the option's amount, the payer (an authorization's `from`)
///   is the option's account, the chain is the option's chain, and the validity ends no later than the
///   option's expiry (or now, when the option gives none) plus ``validityMargin``.
/// - EIP-2612 permits and ERC-20 `approve`/`increaseAllowance` (the Permit2 two-step option): only of the
///   option's asset and only to the canonical Permit2 contract.
/// - Every action: signed by the option's account on the option's chain.
/// - Any other kind (a message, other typed data, another call, a native transfer) is refused unless
///   ``allowsUnrecognizedActions``.
public struct PayOptionCheck: Sendable {
    /// The canonical Permit2 contract, `0x000000000022D473030F116dDEE9F6B43aC78BA3` (the same address on every
    /// chain); `nil` only if the constant were mistyped, in which case every approval is refused.
    public static let permit2 = try? Address("0x000000000022D473030F116dDEE9F6B43aC78BA3")

    /// Whether kinds outside the rules above are let through (their routing checks still apply).
    public var allowsUnrecognizedActions: Bool
    /// How long after the option's expiry a signature may stay valid (default one hour).
    public var validityMargin: UInt64
    /// The clock used when an option has no expiry.
    public var now: @Sendable () -> Date

    /// A check; by default unrecognised kinds are refused and validity may exceed the expiry by one hour.
    public init(
        allowsUnrecognizedActions: Bool = false, validityMargin: UInt64 = 3600,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.allowsUnrecognizedActions = allowsUnrecognizedActions
        self.validityMargin = validityMargin
        self.now = now
    }

    /// Why `option` must not be signed with these previews, naming the action, or `nil` when every action
    /// does only what the option shows.
    public func problem(option: PaymentOption, previews: [SigningPreview]) -> String? {
        guard let account = option.accountID, let payer = account.ethereumAddress else {
            return "the option's account \(EchoedText.abbreviated(option.account)) is not an eip155 account"
        }
        let asset = Self.asset(option.amount.unit)
        let amount = try? UInt256(text: option.amount.value)
        let expiry = option.expiresAt.map { UInt64(max(0, $0)) } ?? UInt64(max(0, now().timeIntervalSince1970))
        let validityLimit = UInt256(expiry &+ validityMargin)
        var spent = UInt256.zero
        for preview in previews {
            let at = "action[\(preview.index)] (\(preview.kind.rawValue))"
            guard preview.chain == account.chainID else {
                return "\(at): on chain \(preview.chain), not the option's chain \(account.chainID)"
            }
            guard preview.account == payer else {
                return "\(at): signed by \(preview.account.checksummed), not the option's account \(payer.checksummed)"
            }
            switch preview.kind {
            case .erc3009Transfer, .erc3009Receive, .permit2Single, .permit2Batch, .permit2Transfer,
                .permit2BatchTransfer, .permit2WitnessTransfer:
                guard let asset, let amount else {
                    return
                        "\(at): the option's amount \(EchoedText.abbreviated(option.amount.unit)) is not an ERC-20 asset on this chain"
                }
                for moved in preview.tokens {
                    guard moved.token == asset.token, asset.chain == preview.chain else {
                        return
                            "\(at): moves token \(moved.token.checksummed), not the option's asset \(asset.token.checksummed)"
                    }
                    spent = spent.adding(moved.amount) ?? .max
                    guard spent <= amount else {
                        return
                            "\(at): \(moved.display) exceeds the option's amount of \(amount.decimalString) base units"
                    }
                }
                if let owner = preview.owner, owner != payer {
                    return "\(at): pays from \(owner.checksummed), not the option's account \(payer.checksummed)"
                }
                guard let deadline = preview.deadline else { return "\(at): has no deadline" }
                guard deadline <= validityLimit else {
                    return
                        "\(at): valid until \(SigningPreview.utcDate(deadline)), after the option's expiry plus \(validityMargin) s"
                }
            case .permit, .erc20Approve, .erc20IncreaseAllowance:
                guard let asset, preview.tokens.allSatisfy({ $0.token == asset.token }) else {
                    return "\(at): for token \(preview.token?.checksummed ?? "?"), not the option's asset"
                }
                guard let permit2 = Self.permit2, preview.spender == permit2 else {
                    return "\(at): allows spender \(preview.spender?.checksummed ?? "?"), not the Permit2 contract"
                }
                if let owner = preview.owner, owner != payer {
                    return "\(at): for owner \(owner.checksummed), not the option's account \(payer.checksummed)"
                }
            default:
                if !allowsUnrecognizedActions {
                    return "\(at): not an action a payment needs (allow unrecognized actions to sign it anyway)"
                }
            }
        }
        return nil
    }

    /// The chain and token of a `caip19/eip155:<chain>/erc20:<address>` unit.
    static func asset(_ unit: String) -> (chain: ChainID, token: Address)? {
        let text = unit.hasPrefix("caip19/") ? String(unit.dropFirst(7)) : unit
        let parts = text.split(separator: "/")
        guard parts.count == 2, parts[1].hasPrefix("erc20:"), let chain = try? ChainID(String(parts[0])),
            let token = try? Address(parts[1].dropFirst(6))
        else { return nil }
        return (chain, token)
    }
}
