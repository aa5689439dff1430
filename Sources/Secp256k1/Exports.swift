// `PrivateKey(secret:)` takes and `SecureBytes.random(count:)` gives the secure buffer type, so
// `import Secp256k1` brings it (see "What `import SignerKit` brings" in docs/ARCHITECTURE.md).
@_exported import SecureMemory
