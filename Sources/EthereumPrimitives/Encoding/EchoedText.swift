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
        var output = ""
        var emitted = 0
        var pending = ""  // hex digits of the current run, not yet known to be short
        var pendingCount = 0
        var inRedactedRun = false
        var truncated = false
        func emit(_ piece: String, count: Int) {
            output += piece
            emitted += count
        }
        for character in text {
            if emitted > limit {
                truncated = true
                break
            }
            if character.isASCII, character.isHexDigit {
                if inRedactedRun { continue }
                pending.append(character)
                pendingCount += 1
                if pendingCount >= redactedRunLength {
                    emit(redactionMarker, count: redactionMarker.count)
                    pending = ""
                    pendingCount = 0
                    inRedactedRun = true
                }
                continue
            }
            inRedactedRun = false
            if pendingCount > 0 {
                emit(pending, count: pendingCount)
                pending = ""
                pendingCount = 0
            }
            emit(String(character), count: 1)
        }
        if pendingCount > 0 { emit(pending, count: pendingCount) }
        guard truncated || emitted > limit else { return output }
        return String(output.prefix(limit)) + "…"
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
