/// Why a string is not a valid CAIP-2 chain id or CAIP-10 account id.
///
/// Each case carries the offending part of the input (or the whole input when the overall shape is
/// wrong), so the message points at what to fix.
public enum CAIPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not of the form `namespace:reference` (CAIP-2); carries the whole input.
    case malformedChainID(String)
    /// Not of the form `namespace:reference:account_address` (CAIP-10); carries the whole input.
    case malformedAccountID(String)
    /// The namespace is not 3 to 8 characters of `[-a-z0-9]`.
    case invalidNamespace(String)
    /// The reference is not 1 to 32 characters of `[-_a-zA-Z0-9]`.
    case invalidReference(String)
    /// An `eip155` reference that is not a decimal chain id without leading zeros (e.g. `0x1`, `01`).
    case invalidEIP155Reference(String)
    /// The account address is not 1 to 128 characters of `[-.%a-zA-Z0-9]`.
    case invalidAccountAddress(String)
    /// An `eip155` account address that is not a strict 20-byte `0x` address (see ``Address``).
    case invalidEIP155Address(AddressError)

    /// A one-line explanation prefixed with `caip:`.
    public var description: String {
        switch self {
        case .malformedChainID(let text):
            "caip: \(EchoedText.abbreviated(text).debugDescription) is not a CAIP-2 chain id (namespace:reference)"
        case .malformedAccountID(let text):
            "caip: \(EchoedText.abbreviated(text).debugDescription) is not a CAIP-10 account id (namespace:reference:account_address)"
        case .invalidNamespace(let text):
            "caip: invalid namespace \(EchoedText.abbreviated(text).debugDescription) (expected 3-8 characters of [-a-z0-9])"
        case .invalidReference(let text):
            "caip: invalid reference \(EchoedText.abbreviated(text).debugDescription) (expected 1-32 characters of [-_a-zA-Z0-9])"
        case .invalidEIP155Reference(let text):
            "caip: invalid eip155 reference \(EchoedText.abbreviated(text).debugDescription) (expected a decimal chain id without leading zeros)"
        case .invalidAccountAddress(let text):
            "caip: invalid account address \(EchoedText.abbreviated(text).debugDescription) (expected 1-128 characters of [-.%a-zA-Z0-9])"
        case .invalidEIP155Address(let error):
            "caip: invalid eip155 account address: \(error)"
        }
    }
}
