// Re-exports: the modules whose types SignerKit's public API takes and returns. A dispatcher user
// writes `import SignerKit` and the backend's module only, and gets `ChainID`, `Address`, `Digest32`,
// `UInt256`, `JSONValue`, `RecoverableSignature`, `SignerClock` (EthereumPrimitives), `TypedData`, `TypedDataHashes`
// (EIP712, in `ResolvedRequest.payload`) and the transaction types (EthereumTransactions). Key
// machinery (Secp256k1) is not re-exported: it is no part of SignerKit's API. See docs/ARCHITECTURE.md.
@_exported import EIP712
@_exported import EthereumPrimitives
@_exported import EthereumTransactions
