/// EIP-712 layer.
