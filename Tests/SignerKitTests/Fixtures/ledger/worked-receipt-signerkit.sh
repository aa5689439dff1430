# The checkpoint's signature, which needs keccak-256 and secp256k1 (any Ethereum tool): EIP-191 personal_sign
# over the note body, its first four lines with their newlines. Then the receipt, and the whole log, at once.
body=$(head -n 4 c.txt | od -An -v -tx1 | tr -d ' \n')
sig=$(tail -n 1 c.txt | cut -d' ' -f3 | base64 -d | tail -c 65 | od -An -v -tx1 | tr -d ' \n')
signerkit recover message --hex "0x$body" --signature "0x$sig"
signerkit audit verify --receipt r.json --checkpoint c.txt --checkpoint-key 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23
echo "exit $?"
signerkit audit verify --log audit.jsonl --checkpoint-key 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23
