/// PKCS11Signer module.
