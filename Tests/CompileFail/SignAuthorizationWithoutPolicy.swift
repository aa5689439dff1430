// EXPECT-ERROR: missing argument for parameter 'policy' in call
//
// SignerKit signs an EIP-7702 authorization only with an AllowedDelegates policy: the argument has no
// default, so forgetting it does not compile (docs/EIP-7702.md, "Policy").
// Type-checked by scripts/compile-fail-check.sh, which requires this file to FAIL with the error above.
import EthereumPrimitives
import SignerKit

func delegate(_ key: any PrehashSigner, to delegate: Address) async throws -> SignedAuthorization {
    try await key.signAuthorization(Authorization(chainId: 1, address: delegate, nonce: 0))
}
