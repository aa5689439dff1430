import Secp256k1
