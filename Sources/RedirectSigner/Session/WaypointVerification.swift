import EthereumPrimitives
import Secp256k1
import SignerKit

/// What an authorize round trip established.
public struct WaypointAuthorization: Sendable, Hashable {
    /// The keyless (Waypoint) wallet address.
    public let address: Address
    /// The user's external account, when one is connected.
    public let secondaryAddress: Address?
    /// The OpenID ID token: verified when the session has an ``IDTokenVerifier`` (see ``identity``);
    /// otherwise a dapp backend must check it against Waypoint's published keys before trusting its claims.
    public let idToken: String
    /// The wallet's protocol version, when sent.
    public let version: String?
    /// The verified identity, when the session checks ID tokens (``WaypointSession/idTokenVerifier``).
    public var identity: VerifiedIDToken? = nil

    /// Every address, keyless wallet first.
    public var addresses: [Address] { [address] + (secondaryAddress.map { [$0] } ?? []) }
}

/// Checks of what a hosted wallet returns: nothing it sends is used before it passes one of these.
public enum WaypointVerification {
    /// Reads an address as a wallet sends it: `0x…` (strict, EIP-55 when mixed case) or `ronin:…`.
    public static func address(_ text: String, field: String) throws(WaypointError) -> Address {
        var candidate = text
        if candidate.lowercased().hasPrefix("ronin:") { candidate = "0x" + candidate.dropFirst(6) }
        do { return try Address(candidate) } catch {
            throw .verificationFailed("\(field) \(CallbackParseError.shown(text)) is not an address")
        }
    }

    /// The result of an authorize callback: the ID token and the addresses.
    ///
    /// - Throws: ``WaypointError/walletFailure(_:)`` for `type=fail`,
    ///   ``WaypointError/verificationFailed(_:)`` when the token or the keyless address is missing or
    ///   an address is malformed.
    public static func authorization(_ callback: WaypointCallback) throws(WaypointError) -> WaypointAuthorization {
        let (data, address, secondary) = try success(callback)
        guard !data.isEmpty else { throw .verificationFailed("authorize callback has an empty ID token") }
        guard let address else { throw .verificationFailed("authorize callback has no address") }
        return WaypointAuthorization(
            address: try self.address(address, field: "address"),
            secondaryAddress: try secondary.map { (text: String) throws(WaypointError) in
                try self.address(text, field: "secondary_address")
            },
            idToken: data, version: callback.version)
    }

    /// The signature of a sign callback, checked against the digest SignerKit computed itself.
    ///
    /// The signature must be 65 bytes r‖s‖v (v 0/1/27/28) and recover `expected` over `digest`; a
    /// high-s signature is taken in its equivalent low-s form. The check is SignerKit's one
    /// `SignatureCheck`; a ``WaypointSigner`` behind a dispatcher leaves it to the dispatcher.
    ///
    /// - Throws: ``WaypointError/walletFailure(_:)`` for `type=fail`,
    ///   ``WaypointError/verificationFailed(_:)`` for anything that is not a signature by `expected`.
    public static func signature(
        _ callback: WaypointCallback, digest: Digest32, expected: Address
    ) throws(WaypointError) -> RecoverableSignature {
        let signature = try parsedSignature(callback)
        do { try SignatureCheck.verify(signature, over: digest, by: expected) } catch {
            throw .verificationFailed("returned \(error)")
        }
        return signature
    }

    /// The signature of a sign callback, read but not checked: 65 bytes r‖s‖v (v 0/1/27/28), a high-s
    /// signature in its equivalent low-s form. For callers that verify it themselves (the dispatcher).
    ///
    /// - Throws: ``WaypointError/walletFailure(_:)`` for `type=fail`,
    ///   ``WaypointError/verificationFailed(_:)`` for anything that is not a 65-byte signature.
    public static func parsedSignature(_ callback: WaypointCallback) throws(WaypointError) -> RecoverableSignature {
        let (data, _, _) = try success(callback)
        let signature: RecoverableSignature
        do { signature = try RecoverableSignature(hex: data) } catch {
            throw .verificationFailed("returned signature \(CallbackParseError.shown(data)): \(error)")
        }
        return ECDSA.normalize(signature)
    }

    /// The transaction hash of a send callback: exactly 32 bytes of `0x`-hex.
    ///
    /// - Throws: ``WaypointError/walletFailure(_:)`` for `type=fail`,
    ///   ``WaypointError/verificationFailed(_:)`` for anything else than a 32-byte hash.
    public static func transactionHash(_ callback: WaypointCallback) throws(WaypointError) -> Bytes32 {
        let (data, _, _) = try success(callback)
        do { return try Bytes32(hex: data) } catch {
            throw .verificationFailed("returned transaction hash \(CallbackParseError.shown(data)): \(error)")
        }
    }

    static func success(_ callback: WaypointCallback) throws(WaypointError) -> (String, String?, String?) {
        switch callback.outcome {
        case .failure(let failure): throw .walletFailure(failure)
        case .success(let data, let address, let secondary): return (data, address, secondary)
        }
    }
}
