/// Secp256k1 layer.
