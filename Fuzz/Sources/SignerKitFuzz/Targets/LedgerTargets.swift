import EthereumPrimitives
import SignerKit

/// The audit ledger's text formats a verifier reads from others: signed notes and the checkpoints in them.
enum LedgerTargets {
    /// A fixed address the fuzzed notes are verified against (any signature line then fails or is ignored).
    static let address = FuzzCheck.constant("ledger address") {
        try Address("0x2c7536E3605D9C16a7a3D7b1898e529396a65c23")
    }

    static let signedNote = FuzzTarget(
        name: "signed-note",
        summary: "signed notes and checkpoints (C2SP formats): an accepted note prints back as its input, its "
            + "checkpoint body round-trips, verifying it never crashes and errors stay bounded"
    ) { bytes in
        guard let text = FuzzCheck.text(bytes) else { return }
        do throws(CheckpointError) {
            let checkpoint = try Checkpoint(parsing: text)
            FuzzCheck.expect(checkpoint.body == text, "a checkpoint prints as something else")
        } catch {
            FuzzCheck.boundedDescription(error)
        }
        do throws(SignedNoteError) {
            let note = try SignedNote(parsing: text)
            FuzzCheck.expect(note.text == text, "a signed note prints as something else")
            do throws(SignedNoteError) {
                _ = try note.verify(keyName: "ledger.example/log", address: address)
            } catch {
                FuzzCheck.boundedDescription(error)
            }
        } catch {
            FuzzCheck.boundedDescription(error)
        }
    }
}
