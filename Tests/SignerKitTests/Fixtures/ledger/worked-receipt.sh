# The receipt r.json checked by hand against the checkpoint c.txt (docs/AUDIT.md, "Worked example: a service
# record and its receipt"): POSIX sh and coreutils, python3 only to read the receipt's entry string.
set -eu
name=signer.example.com/audit                    # the log's origin: the checkpoint key's name
address=2c7536e3605d9c16a7a3d7b1898e529396a65c23 # the checkpoint key's address (lower case, no 0x)
hex() { od -An -v -tx1 | tr -d ' \n'; }          # bytes -> lower-case hex
unhex() { tr a-f A-F | basenc --base16 -d; }     # hex -> bytes (without basenc: xxd -r -p)
node() { { printf '\001'; printf %s "$1$2" | unhex; } | sha256sum | cut -c1-64; }

# 1. The record: the receipt's entry, the line the log holds (no newline).
python3 -c 'import json; print(json.load(open("r.json"))["entry"], end="")' >entry.txt
echo "seq:         $(sed 's/^{"seq":\([0-9]*\),.*/\1/' entry.txt)"
echo "prev:        $(sed 's/^{"seq":[0-9]*,"prev":"\([0-9a-f]*\)".*/\1/' entry.txt)"
# 2. Its leaf hash: SHA-256(0x00 || line).
leaf=$({ printf '\000'; cat entry.txt; } | sha256sum | cut -c1-64)
echo "leaf 1:      $leaf"
# 3. The chain: the next line of the log carries that hash as its prev.
next=$(sed -n 3p audit.jsonl)
echo "prev of 2:   $(printf '%s\n' "$next" | sed 's/^{"seq":2,"prev":"\([0-9a-f]*\)".*/\1/')"
echo "leaf 2:      $({ printf '\000'; printf %s "$next"; } | sha256sum | cut -c1-64)"
# 4. The inclusion proof of index 1 in a tree of 3: p0 joins on the left (1 is odd), p1 on the right;
#    each step is SHA-256(0x01 || left || right).
set -- $(grep -o '"inclusion":\[[^]]*\]' r.json | grep -o '[0-9a-f]\{64\}')
echo "p0:          $1"
echo "p1:          $2"
step=$(node "$1" "$leaf")
echo "node(p0, l): $step"
step=$(node "$step" "$2")
echo "node(n, p1): $step"
# 5. The checkpoint: its size (line 2) and root hash (line 3, base64), where the walk must end.
echo "size:        $(sed -n 2p c.txt)"
echo "root:        $(sed -n 3p c.txt | base64 -d | hex)"
# 6. Its signature line "— <name> <base64>": a 4-byte key ID, then the 65-byte signature r || s || v.
sig=$(tail -n 1 c.txt | cut -d' ' -f3 | base64 -d | hex)
echo "key ID:      $(printf %s "$sig" | cut -c1-8)"
echo "expected:    $({ printf '%s\n\377%s' "$name" signerkit/eip191-secp256k1; printf %s "$address" | unhex; } |
    sha256sum | cut -c1-8)"
echo "signature:   0x$(printf %s "$sig" | cut -c9-)"
# 7. The policy set in force: the receipt's policySet is the SHA-256 of the policy file.
echo "policySet:   $(grep -o '"policySet":"[0-9a-f]*"' r.json | cut -d'"' -f4)"
echo "policy.json: $(sha256sum policy.json | cut -c1-64)"
