import EthereumPrimitives
import Foundation

/// How an audit trail keeps its ledger (the service configuration's `ledger`): the key that signs
/// checkpoints, the log's origin (the checkpoints' first line and the key's name in their signature line), how
/// many records a checkpoint follows at most, and the clock checkpoints take their time from.
public struct AuditLedgerSettings: Sendable {
    /// The checkpoint key (any SignerKit key source).
    public let signer: any PrehashSigner
    /// The log's origin, e.g. `signer.example.com/audit`.
    public let origin: String
    /// A checkpoint is signed once this many records were added since the last one.
    public let checkpointEvery: Int
    /// A checkpoint is also signed once this long has passed since the last one when records were added
    /// meanwhile (``AuditLedger/checkpointIfStale()``; `nil`: by count only).
    public let checkpointInterval: Duration?
    /// The time a checkpoint carries and ``checkpointInterval`` is measured on (an injected clock: tests pass a
    /// manual one).
    public let now: @Sendable () -> Date

    /// Settings signing with `signer` every `checkpointEvery` records, and every `checkpointInterval` while
    /// records come in.
    public init(
        signer: any PrehashSigner, origin: String = "signerkit/audit", checkpointEvery: Int,
        checkpointInterval: Duration? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.signer = signer
        self.origin = origin
        self.checkpointEvery = max(1, checkpointEvery)
        self.checkpointInterval = checkpointInterval
        self.now = now
    }

    /// Whether a ledger of `size` records whose newest checkpoint is of `checkpointed` records, signed (or the
    /// ledger opened) at `since`, is due one by time.
    public func isStale(size: Int, checkpointed: Int, since: Date) -> Bool {
        guard let checkpointInterval, size > checkpointed else { return false }
        let (seconds, attoseconds) = checkpointInterval.components
        return now().timeIntervalSince(since) >= Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The checkpoint of `chain` at `treeSize` records (its current size when `nil`), at ``now``.
    ///
    /// - Throws: ``AuditLedgerError/checkpoint(_:)``.
    public func checkpoint(of chain: LedgerChain, treeSize: Int? = nil) throws(AuditLedgerError) -> Checkpoint {
        do {
            return try chain.checkpoint(
                origin: origin, treeSize: treeSize, time: Int64(now().timeIntervalSince1970.rounded(.down)))
        } catch { throw .checkpoint(error.description) }
    }

    /// Signs `checkpoint` as a note (``SignedNote``) whose key name is the origin.
    ///
    /// - Throws: ``AuditLedgerError/checkpoint(_:)``.
    public func sign(_ checkpoint: Checkpoint) async throws(AuditLedgerError) -> SignedCheckpoint {
        do {
            let note = try await SignedNote.sign(checkpoint, with: signer, keyName: origin)
            return SignedCheckpoint(checkpoint: checkpoint, note: note.text)
        } catch { throw .checkpoint(error.description) }
    }

    /// The checkpoint of `chain` at its size, to sign now, when `wanted` and none is being signed (`signing`,
    /// the size of the one being signed); `signing` then holds its size until the signer clears it. The one
    /// place every ledger store decides to start signing.
    public func claimCheckpoint(of chain: LedgerChain, signing: inout Int?, when wanted: Bool) -> Checkpoint? {
        guard signing == nil, wanted, let checkpoint = try? checkpoint(of: chain) else { return nil }
        signing = checkpoint.size
        return checkpoint
    }

    /// The receipt of `entry` with `proof` to the checkpoint `note`, checked as an auditor checks it — the note
    /// signed by this ledger's key, the proof leading to its root — before anyone is given it: a checkpoint row
    /// changed under a running service fails here rather than in the holder's hands.
    public func checkedReceipt(of entry: LedgerEntry, proof: InclusionProof, checkpoint note: String)
        throws(AuditLedgerError) -> LedgerReceipt
    {
        let receipt = LedgerReceipt(entry: entry, proof: proof, checkpoint: note)
        do { try receipt.verify(against: note, key: signer.address) } catch {
            throw .store("the receipt of record \(entry.seq) does not hold (\(error)): run `signerkit audit verify`")
        }
        return receipt
    }

    /// Whether a ledger of `size` records whose newest checkpoint is of `checkpointed` records is due one.
    public func isDue(size: Int, checkpointed: Int) -> Bool { size - checkpointed >= checkpointEvery }
}

extension LedgerChain {
    /// The inclusion proof of record `leaf` in the tree of `checkpointSize` records (a stored checkpoint's) and
    /// the record's leaf hash, for a receipt; `nil` when no checkpoint covers the record (`checkpointSize` is
    /// `nil`) and none of size `asked` was asked for.
    public func receiptProof(of leaf: Int, checkpointSize: Int?, asked: Int?)
        -> Result<(InclusionProof, Bytes32)?, AuditLedgerError>
    {
        guard leaf >= 0, leaf < size else { return .failure(.unknownLeaf(leaf, size: size)) }
        guard let checkpointSize else { return asked.map { .failure(.unknownCheckpoint($0)) } ?? .success(nil) }
        guard let proof = try? tree.inclusionProof(forLeafAt: leaf, treeSize: checkpointSize),
            let leafHash = try? tree.leafHash(at: leaf)
        else { return .failure(.store("no inclusion proof of record \(leaf) in the tree of \(checkpointSize)")) }
        return .success((proof, leafHash))
    }
}

/// A checkpoint and the text of the signed note that carries it.
public struct SignedCheckpoint: Sendable, Equatable {
    /// The checkpoint.
    public let checkpoint: Checkpoint
    /// The signed note's text (what a log stores and an auditor verifies).
    public let note: String

    /// A signed checkpoint.
    public init(checkpoint: Checkpoint, note: String) {
        self.checkpoint = checkpoint
        self.note = note
    }
}

/// An audit trail that is a ledger: it answers receipts for the records it stored.
public protocol AuditLedger: AuditTrail {
    /// The receipts of request `requestID`'s records, in call order; each proves inclusion in the newest
    /// checkpoint, or in a checkpoint signed now when none covers it yet.
    ///
    /// - Throws: ``AuditLedgerError/unknownRequest(_:)`` or another ``AuditLedgerError``.
    func receipts(requestID: String) async throws(AuditLedgerError) -> [LedgerReceipt]

    /// The receipt of record `leaf`, for the checkpoint of size `treeSize` (one the ledger signed), or as
    /// ``receipts(requestID:)`` chooses when `nil`.
    ///
    /// - Throws: ``AuditLedgerError``.
    func receipt(leaf: Int, treeSize: Int?) async throws(AuditLedgerError) -> LedgerReceipt

    /// Signs a checkpoint when records were added since the newest one and ``AuditLedgerSettings/checkpointInterval``
    /// has passed since it was signed (or since the ledger opened): `signerkit serve` asks periodically, so no
    /// record waits longer than about that interval for a checkpoint. A failure is left to the next call.
    func checkpointIfStale() async
}

extension AuditTrails {
    /// The ledgers among `trail`: itself when it is one, or those of an ``AuditTrails``, in order.
    public static func ledgers(in trail: (any AuditTrail)?) -> [any AuditLedger] {
        if let ledger = trail as? any AuditLedger { return [ledger] }
        if let trails = trail as? AuditTrails { return trails.trails.compactMap { $0 as? any AuditLedger } }
        return []
    }
}

/// Why a ledger could not answer or sign.
public enum AuditLedgerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No record of this request id (abbreviated) is in the ledger.
    case unknownRequest(String)
    /// No record has this leaf index (the ledger holds `size`).
    case unknownLeaf(Int, size: Int)
    /// No checkpoint of this size that covers the leaf was signed.
    case unknownCheckpoint(Int)
    /// A checkpoint could not be made or signed.
    case checkpoint(String)
    /// The store could not be read.
    case store(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .unknownRequest(let id): "no audit record of request \"\(id)\" is in the ledger"
        case .unknownLeaf(let leaf, let size): "no record \(leaf): the ledger holds \(size)"
        case .unknownCheckpoint(let size): "no signed checkpoint of size \(size) covers the record"
        case .checkpoint(let problem): "the checkpoint could not be signed: \(problem)"
        case .store(let problem): "the ledger could not be read: \(problem)"
        }
    }
}
