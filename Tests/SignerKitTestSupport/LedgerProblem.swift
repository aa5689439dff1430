import SignerKit

/// Where ``LedgerVerifier`` found the first problem of a ledger: the record or checkpoint, without the wording
/// (what ledger tests of every store compare).
public enum LedgerProblem: Equatable, Sendable, CustomStringConvertible {
    /// Record `I` (from 0, in stored order).
    case record(Int)
    /// Checkpoint `J` (from 0, in stored order).
    case checkpoint(Int)

    /// `record I` or `checkpoint J`, as the verifier's errors begin.
    public var description: String {
        switch self {
        case .record(let index): "record \(index)"
        case .checkpoint(let index): "checkpoint \(index)"
        }
    }
}

extension LedgerVerificationError {
    /// The record or checkpoint the error names.
    public var located: LedgerProblem {
        switch self {
        case .record(let index, _): .record(index)
        case .checkpoint(let index, _): .checkpoint(index)
        }
    }
}
