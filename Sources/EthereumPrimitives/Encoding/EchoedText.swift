/// Untrusted text as error messages and step output quote it: whole when short, otherwise its
/// first ``limit`` characters and an ellipsis, so a megabyte of hostile input never becomes a
/// megabyte of error message (or of log line); and with every run of 64 or more hex digits
/// replaced by ``redactionMarker``, so a private key pasted into an address, URL, link or account
/// field is never echoed.
///
/// A run is a maximal sequence of ASCII hex digits (`0-9a-fA-F`, decimal digits included); a
/// secp256k1 private key is 64 of them, with or without `0x` (the `x` ends the `0` run). Longer
/// runs are redacted too (a key with digits around it). Redaction happens before abbreviation, so
/// a key straddling the 80-character cut is not shown in part either.
public enum EchoedText {
    /// The most characters quoted.
    public static let limit = 80

    /// The shortest run of hex digits that is redacted (the length of a private key in hex).
    public static let redactedRunLength = 64

    /// What replaces a redacted run of hex digits.
    public static let redactionMarker = "<redacted: 64+ hex digits>"

    /// `text` with every run of 64 or more hex digits replaced by ``redactionMarker``, then, when
    /// longer than ``limit`` characters, its first ``limit`` characters followed by `…`.
    ///
    /// The work is bounded by the quoted prefix plus the hex run it ends in: a megabyte of other
    /// text is not read past the cut.
    public static func abbreviated(_ text: some StringProtocol) -> String {
        abbreviated(text, limit: limit)
    }

    /// ``abbreviated(_:)`` quoting at most `limit` characters.
    ///
    /// Characters are counted as Unicode scalars, so one "character" of ten thousand combining marks
    /// counts as ten thousand: the quote is bounded in bytes too (at most 4 × `limit` plus the ellipsis).
    public static func abbreviated(_ text: some StringProtocol, limit: Int) -> String {
        var output = String.UnicodeScalarView()
        var emitted = 0
        var pending = String.UnicodeScalarView()  // hex digits of the current run, not yet known to be short
        var inRedactedRun = false
        var truncated = false
        for scalar in text.unicodeScalars {
            if emitted > limit {
                truncated = true
                break
            }
            if isHexDigit(scalar) {
                if inRedactedRun { continue }
                pending.append(scalar)
                if pending.count >= redactedRunLength {
                    output.append(contentsOf: redactionMarker.unicodeScalars)
                    emitted += redactionMarker.unicodeScalars.count
                    pending = String.UnicodeScalarView()
                    inRedactedRun = true
                }
                continue
            }
            inRedactedRun = false
            if !pending.isEmpty {
                output.append(contentsOf: pending)
                emitted += pending.count
                pending = String.UnicodeScalarView()
            }
            output.append(scalar)
            emitted += 1
        }
        if !pending.isEmpty {
            output.append(contentsOf: pending)
            emitted += pending.count
        }
        guard truncated || emitted > limit else { return String(output) }
        return String(String.UnicodeScalarView(output.prefix(limit))) + "…"
    }

    /// An ASCII hex digit (`0-9a-fA-F`).
    private static func isHexDigit(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x46, 0x61...0x66: true
        default: false
        }
    }

    /// Whether `text` holds a run of 64 or more hex digits (what ``abbreviated(_:)`` redacts).
    public static func containsRedactableRun(_ text: some StringProtocol) -> Bool {
        var run = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                UInt8(ascii: "A")...UInt8(ascii: "F"):
                run += 1
                if run >= redactedRunLength { return true }
            default:
                run = 0
            }
        }
        return false
    }
}
