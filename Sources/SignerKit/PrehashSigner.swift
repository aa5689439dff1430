import EthereumPrimitives

/// The one primitive a key backend must provide: sign a 32-byte digest.
///
/// Any conforming key gets `personal_sign`, `eth_signTypedData_v4` and transaction signing from
/// SignerKit (see the extensions on this protocol), so a software key and a hardware key share
/// every byte of Ethereum logic.
public protocol PrehashSigner: Sendable {
    /// The account this key controls.
    var address: Address { get }

    /// Signs exactly 32 bytes. The result must be low-s with the recovery id of the normalised signature.
    func sign(prehash: Digest32) async throws(SignerError) -> RecoverableSignature
}
