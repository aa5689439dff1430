/// The wallet RPC methods SignerKit signs.
public enum RpcMethod: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// EIP-712 typed data; params `[address, typedData]`.
    case signTypedDataV4 = "eth_signTypedData_v4"
    /// EIP-191 personal message; params `[message, address]`.
    case personalSign = "personal_sign"
    /// Sign and broadcast a transaction; params `[transaction]`; the result is the transaction hash.
    case sendTransaction = "eth_sendTransaction"
    /// Sign a transaction without broadcasting; params `[transaction]`; the result is the raw transaction.
    case signTransaction = "eth_signTransaction"
    /// Ronin (REP-0008): the registered payer account adds its signature to a sender's type `0x64` request;
    /// params `[transaction]` (`from` the sender, `payer` the account that pays, every field given); the result
    /// is the payer's signature, r‖s‖yParity (`payerR`, `payerS`, `payerV`). A key registered for this method
    /// signs nothing else (``RpcDispatcher/register(_:)`` refuses to mix it with other methods for one account).
    case sponsorTransaction = "ronin_sponsorTransaction"

    /// The methods an account's own key signs with, the default of a registration: every method but
    /// ``sponsorTransaction``, which pays for others and is registered on its own.
    public static let accountMethods: Set<RpcMethod> = Set(allCases).subtracting([.sponsorTransaction])

    /// The wire name.
    public var description: String { rawValue }
}
