/// What an action does, as the preview decoded it. The raw values are the `kind` strings of
/// `signerkit preview --json`.
public enum PreviewKind: String, Sendable, Hashable, CaseIterable {
    /// A transaction that moves native value to an address and carries no calldata.
    case nativeTransfer = "native-transfer"
    /// A transaction without `to`: it deploys its data as a contract.
    case contractCreation = "contract-creation"
    /// A transaction calling a contract with calldata that is none of the decoded ERC-20 calls.
    case contractCall = "contract-call"
    /// A transaction from the account to itself calling ERC-7821 `execute`: the calls of
    /// ``SigningPreview/calls`` run in order, all or none (an EIP-5792 atomic batch).
    case batchedCalls = "batched-calls"
    /// ERC-20 `transfer(address,uint256)`.
    case erc20Transfer = "erc20-transfer"
    /// ERC-20 `approve(address,uint256)`.
    case erc20Approve = "erc20-approve"
    /// ERC-20 `transferFrom(address,address,uint256)`.
    case erc20TransferFrom = "erc20-transferFrom"
    /// `increaseAllowance(address,uint256)` (OpenZeppelin's ERC-20 extension).
    case erc20IncreaseAllowance = "erc20-increaseAllowance"
    /// EIP-2612 `Permit` typed data.
    case permit = "permit"
    /// Permit2 AllowanceTransfer `PermitSingle`.
    case permit2Single = "permit2-single"
    /// Permit2 AllowanceTransfer `PermitBatch`.
    case permit2Batch = "permit2-batch"
    /// Permit2 SignatureTransfer `PermitTransferFrom`.
    case permit2Transfer = "permit2-transfer"
    /// Permit2 SignatureTransfer `PermitBatchTransferFrom`.
    case permit2BatchTransfer = "permit2-batch-transfer"
    /// Permit2 SignatureTransfer `PermitWitnessTransferFrom` (a transfer with an extra witness struct).
    case permit2WitnessTransfer = "permit2-witness-transfer"
    /// ERC-3009 `TransferWithAuthorization`.
    case erc3009Transfer = "erc3009-transfer"
    /// ERC-3009 `ReceiveWithAuthorization`.
    case erc3009Receive = "erc3009-receive"
    /// ERC-3009 `CancelAuthorization`.
    case erc3009Cancel = "erc3009-cancel"
    /// An EIP-7702 authorization. Reserved: SignerKit signs authorizations outside the dispatcher
    /// (`PrehashSigner.signAuthorization(_:policy:)`), so no action preview has this kind today; a type-4
    /// transaction lists its delegations in ``SigningPreview/delegations``.
    case eip7702Authorization = "eip7702-authorization"
    /// An EIP-4361 sign-in message.
    case siwe = "siwe"
    /// Any other `personal_sign` message.
    case message = "message"
    /// Any other typed data (shown as a field tree).
    case typedData = "typed-data"

    /// Whether the preview decoded the action's intent (every kind but a bare contract call, other typed
    /// data and an arbitrary message).
    public var isRecognized: Bool {
        switch self {
        case .contractCall, .typedData, .message: false
        default: true
        }
    }

    /// Whether the action moves tokens or lets someone move them (what ``TokenSpendCap`` counts).
    public var movesTokens: Bool {
        switch self {
        case .erc20Transfer, .erc20Approve, .erc20TransferFrom, .erc20IncreaseAllowance, .permit, .permit2Single,
            .permit2Batch, .permit2Transfer, .permit2BatchTransfer, .permit2WitnessTransfer, .erc3009Transfer,
            .erc3009Receive:
            true
        default: false
        }
    }
}

/// Something in an action a person should look at twice. The raw values are the warning codes of
/// `signerkit preview --json`.
public enum PreviewWarning: String, Sendable, Hashable, CaseIterable {
    /// An amount of at least 2^255, or exactly the Permit2 `uint160` maximum (2^160 − 1): an unlimited
    /// allowance or transfer.
    case unlimitedAmount = "unlimited-amount"
    /// A deadline (or `validBefore`, `expiration`, `sigDeadline`) further ahead than
    /// ``SigningPreviewer/farDeadlineThreshold`` (one year by default).
    case farDeadline = "far-deadline"
    /// The preview could not decode what the action does (an unknown contract call, unknown typed data,
    /// an arbitrary message) and no clear-signing descriptor describes it.
    case unrecognized = "unrecognized"
    /// The owner or payer named inside the message (a Permit's `owner`, an authorization's `from`) is not
    /// the signing account.
    case ownerMismatch = "owner-mismatch"
    /// A deadline that has already passed.
    case expired = "expired"
    /// A sponsored transaction whose `expiredTime` is 0: the payer pays whenever it is sent, however late.
    case noExpiry = "no-expiry"
}

extension PreviewWarning: CustomStringConvertible {
    /// What the warning means, in words (`unlimited amount: an unlimited allowance or transfer`); the code
    /// itself is `rawValue`.
    public var description: String {
        switch self {
        case .unlimitedAmount: "unlimited amount: an unlimited allowance or transfer"
        case .farDeadline: "far deadline: valid further ahead than the previewer's threshold (one year by default)"
        case .unrecognized: "unrecognized: what the action does could not be decoded, and no descriptor describes it"
        case .ownerMismatch: "owner mismatch: the message names an owner or payer other than the signing account"
        case .expired: "expired: a deadline that has already passed"
        case .noExpiry: "no expiry: a sponsored transaction that never expires (the payer pays whenever it is sent)"
        }
    }
}
