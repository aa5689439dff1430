import EIP712
