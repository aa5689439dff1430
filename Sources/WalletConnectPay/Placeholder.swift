/// WalletConnect Pay module.
