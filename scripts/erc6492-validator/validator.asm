; SignerKit's ERC-6492 signature validator: init code for a deployless eth_call (no `to`).
; Written for SignerKit from the ERC-6492 specification; assembled by assemble.py beside this file.
;
; Input: the call's data is this code followed by abi.encode(address signer, bytes32 hash, bytes signature).
; Output: one 32-byte word, 1 when the signature is valid for `signer` over `hash`, else 0. The code
; never reverts on its own (a factory or account failure is a 0); only running out of gas can end it.
;
; Procedure (ERC-6492, "verifier side"):
;   1. When `signature` ends with the magic suffix 0x6492…6492 (32 bytes) it is a wrapper,
;      abi.encode(address factory, bytes factoryCalldata, bytes innerSignature) ++ magic:
;      - if `signer` has no code, call `factory` with `factoryCalldata` (this deploys the account inside
;        the call's throwaway state); a failed call gives 0;
;      - the signature checked is then `innerSignature`.
;      An account that already has code is asked directly with `innerSignature` (the factory is not called).
;   2. STATICCALL signer.isValidSignature(hash, signature) (ERC-1271) with all gas left; valid when the call
;      succeeds and its first returned word is exactly 0x1626ba7e padded with zeros.
;   An account without code (an EOA) gives 0: SignerKit checks EOA signatures itself, never through this code.
;
; Trust: SignerKit builds the input and parses the wrapper (ERC6492Wrapper) before it sends anything, so the
; offsets read here are well-formed; hostile offsets could only make the call run out of gas.
; Portability: no PUSH0 and no MCOPY, so chains without Shanghai/Cancun run it too.
;
; Memory: [0, args) holds the arguments (copied from the code), where args = CODESIZE - @end. The
; isValidSignature calldata is built at CODESIZE, which lies past the arguments. Stack comments list
; the top first.

    PUSH2 @end              ; [L]                       L: this code's length, where the arguments start
    CODESIZE                ; [codesize, L]
    SUB                     ; [argsLen]
    PUSH2 @end              ; [L, argsLen]
    PUSH1 0x00              ; [0, L, argsLen]
    CODECOPY                ; []                        memory[0, argsLen) = arguments

    PUSH1 0x00
    MLOAD                   ; [signer]
    PUSH1 0x40
    MLOAD                   ; [sigOff, signer]          offset of `signature` in the arguments
    DUP1
    MLOAD                   ; [len, sigOff, signer]
    SWAP1
    PUSH1 0x20
    ADD                     ; [start, len, signer]      start: the signature's first byte in memory

    ; A signature shorter than the suffix is not wrapped.
    PUSH1 0x20
    DUP3                    ; [len, 32, start, len, signer]
    LT                      ; [len < 32, start, len, signer]
    PUSH2 @plain
    JUMPI                   ; [start, len, signer]

    ; Its last word: the magic suffix?
    DUP2
    DUP2
    ADD                     ; [start+len, start, len, signer]
    PUSH1 0x20
    SWAP1
    SUB                     ; [start+len-32, start, len, signer]
    MLOAD                   ; [tail, start, len, signer]
    PUSH32 0x6492649264926492649264926492649264926492649264926492649264926492
    EQ
    ISZERO                  ; [notWrapped, start, len, signer]
    PUSH2 @plain
    JUMPI                   ; [start, len, signer]

    ; Wrapped. W = start: the tuple (factory, factoryCalldata, innerSignature), offsets relative to W.
    DUP1
    PUSH1 0x40
    ADD
    MLOAD                   ; [innerOff, W, len, signer]
    DUP2
    ADD                     ; [innerPos, W, len, signer]   innerPos: innerSignature's length word
    DUP4
    EXTCODESIZE             ; [codeSize, innerPos, W, len, signer]
    PUSH2 @deployed
    JUMPI                   ; [innerPos, W, len, signer]

    ; No code yet: CALL(gas, factory, 0, factoryCalldata, factoryCalldataLen, 0, 0).
    PUSH1 0x00              ; retSize
    PUSH1 0x00              ; retOffset      [0, 0, innerPos, W, len, signer]
    DUP4
    PUSH1 0x20
    ADD
    MLOAD                   ; [fcdOff, 0, 0, innerPos, W, len, signer]
    DUP5
    ADD                     ; [fcdPos, 0, 0, innerPos, W, len, signer]
    DUP1
    MLOAD                   ; [fcdLen, fcdPos, 0, 0, innerPos, W, len, signer]
    SWAP1
    PUSH1 0x20
    ADD                     ; [fcdData, fcdLen, 0, 0, innerPos, W, len, signer]
    PUSH1 0x00              ; [0 (value), fcdData, fcdLen, 0, 0, innerPos, W, len, signer]
    DUP7
    MLOAD                   ; [factory, 0, fcdData, fcdLen, 0, 0, innerPos, W, len, signer]
    GAS
    CALL                    ; [success, innerPos, W, len, signer]
    ISZERO
    PUSH2 @invalid
    JUMPI                   ; [innerPos, W, len, signer]

deployed:
    JUMPDEST                ; [innerPos, W, len, signer]
    DUP1
    MLOAD                   ; [innerLen, innerPos, W, len, signer]
    SWAP1
    PUSH1 0x20
    ADD                     ; [innerStart, innerLen, W, len, signer]
    SWAP2
    POP                     ; [innerLen, innerStart, len, signer]
    SWAP2
    POP                     ; [innerStart, innerLen, signer]
    PUSH2 @check
    JUMP

plain:
    JUMPDEST                ; [start, len, signer]

check:
    JUMPDEST                ; [sStart, sLen, signer]    the signature to check, in memory
    ; calldata at P = CODESIZE: selector, hash, 0x40, sLen, signature bytes.
    PUSH4 0x1626ba7e
    PUSH1 0xe0
    SHL
    CODESIZE
    MSTORE                  ; memory[P] = isValidSignature(bytes32,bytes) selector
    PUSH1 0x20
    MLOAD                   ; [hash, sStart, sLen, signer]
    CODESIZE
    PUSH1 0x04
    ADD
    MSTORE                  ; memory[P+4] = hash
    PUSH1 0x40
    CODESIZE
    PUSH1 0x24
    ADD
    MSTORE                  ; memory[P+36] = 0x40, the offset of the bytes argument
    DUP2
    CODESIZE
    PUSH1 0x44
    ADD
    MSTORE                  ; memory[P+68] = sLen
    DUP2                    ; [sLen, sStart, sLen, signer]
    DUP2
    PUSH2 @end
    ADD                     ; [L+sStart, sLen, sStart, sLen, signer]   the signature's place in the code
    CODESIZE
    PUSH1 0x64
    ADD                     ; [P+100, L+sStart, sLen, sStart, sLen, signer]
    CODECOPY                ; [sStart, sLen, signer]   memory[P+100, +sLen) = signature bytes
    POP                     ; [sLen, signer]

    ; STATICCALL(gas, signer, P, 100+sLen, 0, 32)
    PUSH1 0x20              ; retSize
    PUSH1 0x00              ; retOffset      [0, 32, sLen, signer]
    DUP3
    PUSH1 0x64
    ADD                     ; [100+sLen, 0, 32, sLen, signer]
    CODESIZE                ; [P, 100+sLen, 0, 32, sLen, signer]
    DUP6                    ; [signer, P, …]
    GAS
    STATICCALL              ; [success, sLen, signer]
    RETURNDATASIZE
    PUSH1 0x20
    GT
    ISZERO                  ; [returned >= 32, success, sLen, signer]
    AND                     ; [answered, sLen, signer]
    PUSH1 0x00
    MLOAD                   ; [word, answered, sLen, signer]   memory[0] held the signer (high bytes zero)
    PUSH4 0x1626ba7e
    PUSH1 0xe0
    SHL
    EQ                      ; [isMagic, answered, sLen, signer]
    AND                     ; [valid, sLen, signer]
    PUSH1 0x00
    MSTORE
    PUSH1 0x20
    PUSH1 0x00
    RETURN                  ; returns the word 1 or 0

invalid:
    JUMPDEST
    PUSH1 0x00
    PUSH1 0x00
    MSTORE
    PUSH1 0x20
    PUSH1 0x00
    RETURN                  ; returns the word 0

end:                        ; the arguments follow here
