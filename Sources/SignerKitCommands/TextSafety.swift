import EthereumPrimitives

/// Keeps what the CLI prints on one line and free of key material.
enum TextSafety {
    /// Escapes control characters (`\n`, `\r`, `\t`, other C0 codes, DEL, and the Unicode line and
    /// paragraph separators) so that `text` prints as exactly one line and cannot drive a terminal.
    static func singleLine(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x00..<0x20, 0x7F, 0x85, 0x2028, 0x2029:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A user-supplied argument (file path, unknown command or flag, option value) as it may appear
    /// in an error message: quoted when needed, replaced by a placeholder when it looks like a raw
    /// private key (64 hex digits, with or without `0x`), so a key pasted in the wrong place is never
    /// echoed, and otherwise through ``EchoedText/abbreviated(_:)`` (longer hex runs redacted, at
    /// most 80 characters), so a megabyte argument is not echoed whole.
    static func displayArgument(_ argument: String) -> String {
        if looksLikePrivateKey(argument) { return "<argument redacted: it looks like a private key>" }
        let safe = singleLine(EchoedText.abbreviated(argument))
        if safe.isEmpty || safe.contains(" ") || safe != argument { return "\"\(safe)\"" }
        return safe
    }

    /// A value that may legitimately be 64 hex digits (a transaction hash from a server) as a step
    /// shows it: at most ``EchoedText/limit`` characters, control characters escaped, not redacted.
    static func bounded(_ value: some StringProtocol) -> String {
        singleLine(value.count > EchoedText.limit ? String(value.prefix(EchoedText.limit)) + "…" : String(value))
    }

    /// An untrusted value (an address, URL, link, account, method name, option id from a server) as
    /// it may appear in an error or a step line: hex runs of 64 or more digits redacted, at most 80
    /// characters, control characters escaped. Not quoted.
    static func echoed(_ value: some StringProtocol) -> String {
        singleLine(EchoedText.abbreviated(value))
    }

    /// Whether `text` contains a run of exactly 64 hex digits (optionally `0x`-prefixed), the shape of
    /// a secp256k1 private key, anywhere in it (for example `--key=0x…` or `keys/0x….txt`).
    static func looksLikePrivateKey(_ text: String) -> Bool {
        var run = 0
        for byte in text.utf8 {
            if Hex.isDigit(byte) {
                run += 1
            } else {
                if run == 64 { return true }
                // After `0x` the run restarts, so the prefix's `0` is not counted.
                run = 0
            }
        }
        return run == 64
    }
}

extension Hex {
    /// Whether `byte` is an ASCII hex digit.
    static func isDigit(_ byte: UInt8) -> Bool { nibble(byte) != nil }
}
