import Secp256k1
import SoftwareSigner

/// Fixed test keys (public test vectors; never fund them).
public enum TestKeys {
    /// The key from the web3.js documentation; address 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23.
    public static let alphaHex = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
    /// `alphaHex`'s address.
    public static let alphaAddress = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
    /// A second key, for "someone else's signature" cases.
    public static let betaHex = "0x8da4ef21b864d2cc526dbdb2a120bd2874c36c9d0a1fb7f8c63d7f7a8b41de8f"
    /// A third key, for custom backends.
    public static let gammaHex = "0x1111111111111111111111111111111111111111111111111111111111111111"
    /// A fourth key, for custom backends.
    public static let deltaHex = "0x2222222222222222222222222222222222222222222222222222222222222222"
    /// A fifth key, for a software backend in mixed dispatches.
    public static let epsilonHex = "0x0123456789012345678901234567890123456789012345678901234567890123"

    /// A software signer holding `hex`.
    public static func signer(_ hex: String) throws -> SoftwareKeySigner { try SoftwareKeySigner(hex: hex) }

    /// The private key `hex`.
    public static func key(_ hex: String) throws -> PrivateKey { try PrivateKey(hex: hex) }

    /// ``alphaHex`` as a private key.
    public static let walletKey: PrivateKey = {
        do { return try PrivateKey(hex: alphaHex) } catch { fatalError("test key: \(error)") }
    }()

    /// ``alphaHex`` as a signer.
    public static let wallet = fixed(alphaHex)
    /// ``betaHex`` as a signer.
    public static let other = fixed(betaHex)
    /// ``epsilonHex`` as a signer.
    public static let software = fixed(epsilonHex)

    private static func fixed(_ hex: String) -> SoftwareKeySigner {
        do { return try SoftwareKeySigner(hex: hex) } catch { fatalError("test key: \(error)") }
    }
}
