import EthereumPrimitives
import Secp256k1

/// Why a transaction request, a raw transaction or a transaction signature is not acceptable.
///
/// Every case that concerns one field names it, using the `eth_sendTransaction` JSON names
/// (`"gas"`, `"maxFeePerGas"`, `"accessList[0].storageKeys[1]"`) for requests and the RLP field
/// names (`"nonce"`, `"to"`, `"v"`) for raw transactions. Descriptions are single lines such as
/// `field "maxFeePerGas": invalid quantity "0xzz"`.
public enum TransactionError: Error, Sendable, Equatable, CustomStringConvertible {
    // MARK: Request JSON

    /// The transaction request is not a JSON object; carries the kind received (e.g. `"array"`).
    case notAnObject(actual: String)
    /// A field holds the wrong kind of JSON value.
    case wrongJSONKind(field: String, expected: String, actual: String)
    /// A quantity that is neither a `0x`-hex nor a decimal integer (or is empty, a fraction, …).
    case invalidQuantity(field: String, value: String)
    /// A quantity below zero.
    case negativeQuantity(field: String, value: String)
    /// A quantity of 2^256 or more.
    case quantityTooLarge(field: String, value: String)
    /// A quantity that does not fit the field's width (an authorization's 64-bit nonce, 8-bit yParity).
    case quantityTooWide(field: String, value: String, bits: Int)
    /// A nonce of 2^64 − 1 or more (EIP-2681 caps nonces below that).
    case nonceTooLarge(UInt256)
    /// An address that is not `0x` + 40 hex digits or has a wrong EIP-55 checksum.
    case invalidAddress(field: String, AddressError)
    /// Byte data (`data`, `input`, a storage key, a raw transaction) that is not strict `0x`-hex
    /// of the required length.
    case invalidBytes(field: String, HexError)
    /// Two synonymous fields (`data`/`input`, `gas`/`gasLimit`) are both present with different values.
    case conflictingValues(String, String)
    /// Two fields that select different transaction types are both present
    /// (`gasPrice` with `maxFeePerGas` or `maxPriorityFeePerGas`).
    case conflictingFields(String, String)
    /// A field the transaction's type cannot carry, e.g. `maxFeePerGas` in a type `0x1` transaction.
    case fieldNotAllowed(field: String, type: TransactionType)
    /// A field of a transaction kind this module does not build (blob transactions).
    case unsupportedField(String)
    /// A transaction type other than `0x0`, `0x1`, `0x2` or `0x4`; carries it as a hex quantity.
    case unsupportedType(String)
    /// A type SignerKit forwards but never signs (``TransactionType/roninSponsored``): only a backend that
    /// hands the request to the wallet sponsoring it can send it.
    case forwardOnly(TransactionType)
    /// No `to` and no `data`: a contract creation with empty init code (almost always a mistake
    /// that would lose the value sent).
    case contractCreationWithoutData
    /// A type that cannot create contracts (EIP-7702 set-code) without a `to`.
    case contractCreationNotAllowed(type: TransactionType)
    /// A type `0x4` transaction with an empty `authorizationList` (EIP-7702 makes it invalid).
    case emptyAuthorizationList
    /// `maxPriorityFeePerGas` is larger than `maxFeePerGas`.
    case priorityFeeAboveMaxFee(maxPriorityFeePerGas: UInt256, maxFeePerGas: UInt256)

    // MARK: Completion

    /// A field needed to build the transaction is absent (and was not filled in).
    case missingField(String)
    /// The request's `chainId` differs from the chain the request was addressed to.
    case chainIdMismatch(transaction: UInt256, expected: UInt256)

    // MARK: Raw transactions

    /// The raw transaction has no bytes.
    case emptyRawTransaction
    /// The raw transaction is not one canonical RLP item (after the type byte, for typed
    /// transactions). Offsets count from the first byte of the raw transaction.
    case malformedRLP(RLPError)
    /// The raw transaction's RLP list has the wrong number of fields for its type.
    case wrongFieldCount(type: TransactionType, expected: Int, actual: Int)
    /// One field of a raw transaction is not acceptable.
    case invalidRawField(field: String, problem: RawFieldProblem)

    // MARK: Signatures

    /// The signature's s is above n/2; Ethereum accepts only low-s transaction signatures (EIP-2).
    case highS
    /// No sender could be recovered from the signature.
    case senderRecovery(RecoveryError)
    /// The payer's signature of a type `0x64` transaction (`payerV`, `payerR`, `payerS`) is not acceptable:
    /// high s, no key recovers from it, or it recovers to another address than `payer`; the reason.
    case invalidPayerSignature(String)
    /// A type `0x64` transaction whose payer is its own sender (REP-0008 refuses it).
    case payerIsSender(Address)

    /// What is wrong with one field of a raw transaction.
    public enum RawFieldProblem: Sendable, Equatable, CustomStringConvertible {
        /// The item is not the expected RLP shape or not a canonical integer.
        case rlp(RLPError)
        /// A byte string of the wrong length (an address, a storage key).
        case wrongLength(expected: Int, actual: Int)
        /// A list with the wrong number of items (an access-list entry).
        case wrongItemCount(expected: Int, actual: Int)
        /// An integer outside the values the field allows (a `v` or `yParity`), as a hex quantity.
        case invalidValue(String)

        /// A short lower-case explanation.
        public var description: String {
            switch self {
            case .rlp(let error): "\(error)"
            case .wrongLength(let expected, let actual): "expected \(expected) bytes, got \(actual)"
            case .wrongItemCount(let expected, let actual): "expected a list of \(expected) items, got \(actual)"
            case .invalidValue(let value): "invalid value \(value)"
            }
        }
    }

    /// A one-line explanation naming the field, e.g. `field "maxFeePerGas": invalid quantity "0xzz"`.
    public var description: String {
        switch self {
        case .notAnObject(let actual):
            "transaction request must be a JSON object, got \(actual)"
        case .wrongJSONKind(let field, let expected, let actual):
            "field \(Self.quote(field)): expected \(expected), got \(actual)"
        case .invalidQuantity(let field, let value):
            "field \(Self.quote(field)): invalid quantity \(Self.quote(value))"
        case .negativeQuantity(let field, let value):
            "field \(Self.quote(field)): negative quantity \(Self.quote(value))"
        case .quantityTooLarge(let field, let value):
            "field \(Self.quote(field)): quantity \(Self.quote(value)) does not fit in 256 bits"
        case .quantityTooWide(let field, let value, let bits):
            "field \(Self.quote(field)): quantity \(Self.quote(value)) does not fit in \(bits) bits"
        case .nonceTooLarge(let nonce):
            "field \"nonce\": \(nonce.decimalString) is not below 2^64-1 (EIP-2681)"
        case .invalidAddress(let field, let error):
            "field \(Self.quote(field)): \(error)"
        case .invalidBytes(let field, let error):
            "field \(Self.quote(field)): invalid hex data: \(error)"
        case .conflictingValues(let first, let second):
            "fields \(Self.quote(first)) and \(Self.quote(second)) are both present with different values"
        case .conflictingFields(let first, let second):
            "field \(Self.quote(first)) cannot be combined with \(Self.quote(second))"
        case .fieldNotAllowed(let field, let type):
            "field \(Self.quote(field)) is not allowed in a \(type) transaction"
        case .unsupportedField(let field):
            "field \(Self.quote(field)) is not supported (blob transactions are not supported)"
        case .unsupportedType(let type):
            "field \"type\": unsupported transaction type \(Self.quote(type)) (supported: 0x0, 0x1, 0x2, 0x4, 0x64)"
        case .forwardOnly(let type):
            "field \"type\": a \(type) transaction is signed by the wallet that sponsors it, never here (only a hosted-wallet backend forwards it)"
        case .contractCreationWithoutData:
            "field \"to\" is missing and \"data\" is empty: refusing a contract creation without code"
        case .contractCreationNotAllowed(let type):
            "field \"to\" is missing: a \(type) transaction cannot create a contract"
        case .emptyAuthorizationList:
            "field \"authorizationList\" is empty: a type 0x4 (EIP-7702) transaction needs at least one authorization"
        case .priorityFeeAboveMaxFee(let priority, let maxFee):
            "field \"maxPriorityFeePerGas\": \(priority) is larger than maxFeePerGas \(maxFee)"
        case .missingField(let field):
            "field \(Self.quote(field)) is missing"
        case .chainIdMismatch(let transaction, let expected):
            "field \"chainId\": \(transaction) does not match the requested chain \(expected)"
        case .emptyRawTransaction:
            "raw transaction is empty"
        case .malformedRLP(let error):
            "raw transaction: \(error)"
        case .wrongFieldCount(let type, let expected, let actual):
            "raw transaction: a \(type) transaction has \(expected) fields, got \(actual)"
        case .invalidRawField(let field, let problem):
            "raw transaction field \(Self.quote(field)): \(problem)"
        case .highS:
            "signature s is above n/2 (Ethereum requires low-s signatures, EIP-2)"
        case .senderRecovery(let error):
            "cannot recover the sender: \(error)"
        case .invalidPayerSignature(let reason):
            "fields \"payerV\", \"payerR\", \"payerS\": \(reason)"
        case .payerIsSender(let address):
            "field \"payer\": \(address.checksummed) is also the sender (a sponsored transaction needs another payer)"
        }
    }

    /// A JSON string literal of `text`, shortened to 80 characters so hostile input cannot
    /// flood a message.
    static func quote(_ text: String) -> String {
        JSONValue.quoted(EchoedText.abbreviated(text))
    }
}
