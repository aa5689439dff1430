import EthereumPrimitives

/// What a backend produced for one action.
public enum ActionResult: Sendable, Equatable {
    /// A message or typed-data signature (r‖s‖v, v = 27/28).
    case signature(RecoverableSignature)
    /// The hash of a broadcast transaction (`eth_sendTransaction`).
    case transactionHash(Bytes32)
    /// A signed raw transaction (`eth_signTransaction`).
    case rawTransaction([UInt8])
    /// A message or typed-data signature by a contract account (a smart account): any bytes its
    /// `isValidSignature` accepts (ERC-1271), or an ERC-6492 wrapper when the account is not deployed yet.
    /// Verified by asking the account through the node of the action's chain (``AccountSignatureVerifier``).
    case contractSignature([UInt8])
    /// A payer's signature of a Ronin sponsored transaction (`ronin_sponsorTransaction`), over the payer hash
    /// SignerKit computed; its string is r‖s‖yParity (y-parity 0 or 1: the request's `payerR`, `payerS`,
    /// `payerV`).
    case payerSignature(RecoverableSignature)

    /// The string Pay's `confirmPayment` and wallet RPC responses carry: `0x…` hex.
    public var resultString: String {
        switch self {
        case .signature(let signature): signature.hex
        case .transactionHash(let hash): hash.hex
        case .rawTransaction(let raw), .contractSignature(let raw): Hex.encode(raw)
        case .payerSignature(let signature): Hex.encode(signature.r.bytes + signature.s.bytes + [signature.yParity])
        }
    }
}
