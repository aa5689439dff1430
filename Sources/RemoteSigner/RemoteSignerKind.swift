/// Which API the remote signer speaks; decides which remote call serves each dispatcher method.
///
/// | dispatcher method | `web3signer` (eth1 JSON-RPC) | `signerkit` (`signerkit serve`) |
/// |---|---|---|
/// | `personal_sign` | `eth_sign [address, data]` (EIP-191 prefix applied remotely) | `personal_sign [data, address]` |
/// | `eth_signTypedData_v4` | `eth_signTypedData [address, typedDataJSONText]` | `eth_signTypedData_v4 [address, typedData]` |
/// | `eth_signTransaction` | `eth_signTransaction [tx]` | `eth_signTransaction [tx]` |
/// | `eth_sendTransaction` | never forwarded | never forwarded |
///
/// web3signer's `POST /api/v1/eth1/sign/{publicKey}` signs keccak256 of the data it is given
/// (``RemoteSignerClient/signKeccak(of:publicKey:)``): no dispatcher method is mapped to it, because the
/// three above name the account and carry the structured request the remote can check, where a bare byte
/// string does not.
public enum RemoteSignerKind: String, Sendable, Equatable, CaseIterable {
    /// Consensys web3signer's eth1 API.
    case web3signer
    /// Another SignerKit signer service (`signerkit serve`), reached with a bearer token.
    case signerkit
}
