import EthereumPrimitives

/// Constants of the Ronin Waypoint hosted-wallet protocol.
///
/// A dapp sends the user's browser to one of three pages on the Waypoint origin, the user approves
/// there, and the hosted wallet redirects the browser to the dapp's redirect URI with the result in
/// the query (see ``WaypointRequest`` and ``WaypointCallback``).
public enum Waypoint {
    /// The production origin, `https://waypoint.roninchain.com`.
    public static let defaultOrigin = "https://waypoint.roninchain.com"
    /// Ronin mainnet's EIP-155 chain id.
    public static let roninMainnet: UInt64 = 2020
    /// Ronin's Saigon testnet EIP-155 chain id.
    public static let saigonTestnet: UInt64 = 2021
    /// The chains a ``WaypointSigner`` serves unless configured otherwise: Ronin mainnet and Saigon.
    public static let roninChains: Set<ChainID> = [ChainID(eip155: roninMainnet), ChainID(eip155: saigonTestnet)]
    /// The scope most dapps ask for: an OpenID identity and the wallet address.
    public static let defaultScope = ["openid", "wallet"]

    /// Whether `text` can serve as a redirect URI: a scheme and something after it, printable ASCII
    /// without spaces, and no fragment (`http://127.0.0.1:5000/callback`, `mydapp://callback`).
    public static func isValidRedirectURI(_ text: String) -> Bool {
        WaypointCallback.isRedirectURI(text)
    }
}

/// The `method` a callback answers: which kind of request it belongs to.
public enum WaypointMethod: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `/client/{clientId}/authorize`.
    case auth
    /// `/wallet/send` (native transfers and contract calls).
    case send
    /// `/wallet/sign` (personal messages and typed data).
    case sign

    /// The wire name.
    public var description: String { rawValue }
}

/// A hosted-wallet error code from a `type=fail` callback.
///
/// Every numeric code parses: codes this version does not know become ``unknown(_:)``.
public enum WaypointErrorCode: Sendable, Hashable, CustomStringConvertible {
    /// 1000 `WALLET_USER_CANCEL`: the user rejected the request.
    case userCancel
    /// 1001 `WALLET_SIGN_NO_PARAMS`: a sign request carried neither a message nor typed data.
    case signNoParams
    /// 1003 `WALLET_INVALID_PAYLOAD`: the request's parameters were invalid.
    case invalidPayload
    /// 1004 `AUTHORIZE_INVALID_PAYLOAD`: the authorize request's parameters were invalid.
    case authorizeInvalidPayload
    /// 2000 `WALLET_UNKNOWN_ERR`.
    case unknownError
    /// 2001 `WALLET_NO_ADDRESS_ERR`: the wallet has no (matching) address.
    case noAddress
    /// 3000 `WALLET_CANT_CREATE`.
    case cantCreate
    /// 4000 `WALLET_CANT_SIMULATE`: the transaction failed simulation.
    case cantSimulate
    /// A code this version does not know.
    case unknown(Int)

    /// Every known code.
    public static let known: [WaypointErrorCode] = [
        .userCancel, .signNoParams, .invalidPayload, .authorizeInvalidPayload, .unknownError, .noAddress, .cantCreate,
        .cantSimulate,
    ]

    /// The code for a number; unknown numbers become ``unknown(_:)``.
    public init(code: Int) {
        self = Self.known.first { $0.code == code } ?? .unknown(code)
    }

    /// The numeric code.
    public var code: Int {
        switch self {
        case .userCancel: 1000
        case .signNoParams: 1001
        case .invalidPayload: 1003
        case .authorizeInvalidPayload: 1004
        case .unknownError: 2000
        case .noAddress: 2001
        case .cantCreate: 3000
        case .cantSimulate: 4000
        case .unknown(let code): code
        }
    }

    /// The protocol's name for the code, e.g. `WALLET_USER_CANCEL`; `nil` when unknown.
    public var name: String? {
        switch self {
        case .userCancel: "WALLET_USER_CANCEL"
        case .signNoParams: "WALLET_SIGN_NO_PARAMS"
        case .invalidPayload: "WALLET_INVALID_PAYLOAD"
        case .authorizeInvalidPayload: "AUTHORIZE_INVALID_PAYLOAD"
        case .unknownError: "WALLET_UNKNOWN_ERR"
        case .noAddress: "WALLET_NO_ADDRESS_ERR"
        case .cantCreate: "WALLET_CANT_CREATE"
        case .cantSimulate: "WALLET_CANT_SIMULATE"
        case .unknown: nil
        }
    }

    /// A default human text for the code (what the simulator sends).
    public var defaultMessage: String {
        switch self {
        case .userCancel: "User rejected"
        case .signNoParams: "No message or typed data to sign"
        case .invalidPayload: "Invalid payload"
        case .authorizeInvalidPayload: "Invalid authorize payload"
        case .unknownError: "Unknown error"
        case .noAddress: "No wallet address"
        case .cantCreate: "Cannot create the wallet"
        case .cantSimulate: "Cannot simulate the transaction"
        case .unknown(let code): "Error \(code)"
        }
    }

    /// `1000 WALLET_USER_CANCEL`, or the number alone when unknown.
    public var description: String { name.map { "\(code) \($0)" } ?? String(code) }
}
