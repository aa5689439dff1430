import EthereumPrimitives

/// Why a checkpoint could not be made, or why a text is not a checkpoint body (C2SP tlog-checkpoint with
/// SignerKit's `time` line; see ``Checkpoint``).
public enum CheckpointError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The lines of a checkpoint body, for errors that name one.
    public enum Field: String, Sendable, Equatable {
        /// Line 1: the log's origin.
        case origin = "origin"
        /// Line 2: the tree size in decimal.
        case size = "tree size"
        /// Line 3: the root hash in base64.
        case rootHash = "root hash"
        /// Line 4, optional: `time <unix seconds>`.
        case time = "time"
        /// Any other line after the root hash: SignerKit defines no other extension line.
        case `extension` = "extension"
    }

    /// The origin given to ``Checkpoint/init(origin:size:root:time:)`` is empty or holds a control character
    /// (a newline would end the line); the text is abbreviated (`EchoedText`).
    case invalidOrigin(String)
    /// A negative tree size was given.
    case negativeSize(Int)
    /// A negative time was given.
    case negativeTime(Int64)
    /// The body does not end in a newline.
    case missingFinalNewline
    /// The body ends before line `line`, which must hold `field`.
    case missingLine(line: Int, field: Field)
    /// Line `line` is not a valid `field`; `text` is the line as read, abbreviated (`EchoedText`).
    case malformedLine(line: Int, field: Field, text: String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .invalidOrigin(let origin):
            "invalid checkpoint origin \"\(origin)\": it must be non-empty with no control character"
        case .negativeSize(let size): "invalid checkpoint tree size \(size): it must not be negative"
        case .negativeTime(let time): "invalid checkpoint time \(time): it must not be negative"
        case .missingFinalNewline: "the checkpoint body does not end in a newline"
        case .missingLine(let line, let field): "the checkpoint body ends before line \(line) (\(field.rawValue))"
        case .malformedLine(let line, let field, let text):
            "checkpoint line \(line) (\(field.rawValue)) \(Self.requirement(field)), got \"\(text)\""
        }
    }

    /// What a line of `field` must be.
    private static func requirement(_ field: Field) -> String {
        switch field {
        case .origin: "must be non-empty with no control character"
        case .size: "must be a decimal number without leading zeros"
        case .rootHash: "must be the standard padded base64 of 32 bytes"
        case .time: "must be `time <unix seconds>` in decimal without leading zeros"
        case .extension: "is not allowed: the only extension line is `time <unix seconds>`, once, after the root hash"
        }
    }
}
