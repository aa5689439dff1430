import EthereumPrimitives

/// SignerKit's own ERC-6492 validator: EVM init code run by a deployless `eth_call` (no `to`).
///
/// The call's data is this code followed by `abi.encode(address signer, bytes32 hash, bytes signature)`;
/// the call returns one word, 1 when `signature` is valid for `signer` over `hash`, else 0. A signature
/// ending in ERC6492Wrapper/magicSuffix is unwrapped; when the signer has no code yet, its factory is
/// called with the wrapper's calldata first (inside the call's throwaway state). The signer is then asked
/// `isValidSignature(hash, signature)` (ERC-1271). Never an EOA check: SignerKit does that itself.
///
/// The source is `scripts/erc6492-validator/validator.asm` (commented, hand-assembled; written from the
/// ERC-6492 specification) and `assemble.py` beside it makes this hex; a test re-assembles the source
/// and compares, so the two cannot drift.
public enum ERC6492Validator {
    /// The assembled code, `0x`-hex, as `assemble.py` prints it.
    public static let codeHex =
        "0x6100e538036100e5600039600051604051805190602001602082106100865781810160209003517f649264926492649264926492649264926492649264926492649264926492649214156100865780604001518101833b610077576000600083602001518401805190602001600086515af1156100da575b80519060200191509150610087565b5b631626ba7e60e01b385260205138600401526040386024015281386044015281816100e501386064013950602060008260640138855afa3d6020111516600051631626ba7e60e01b141660005260206000f35b600060005260206000f3"

    /// The assembled code's bytes.
    public static let code: [UInt8] = {
        guard let bytes = try? Hex.decode(codeHex) else { preconditionFailure("ERC6492Validator.codeHex is hex") }
        return bytes
    }()

    /// The data of the deployless call that asks whether `signature` is valid for `signer` over `hash`.
    public static func callData(signer: Address, hash: Digest32, signature: [UInt8]) -> [UInt8] {
        code + ContractCallData.encode([.word(signer.word), .word(hash), .bytes(signature)])
    }
}
