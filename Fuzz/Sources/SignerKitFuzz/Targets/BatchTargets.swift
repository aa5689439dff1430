import EthereumPrimitives
import SignerKit

/// Batched calls: the ERC-7821 `execute` calldata of a single batch.
enum BatchTargets {
    static let erc7821Batch = FuzzTarget(
        name: "erc7821-batch",
        summary: "ERC-7821 execute calldata (the input, and the input after the selector and single-batch mode): "
            + "typed errors naming field and position; an accepted batch re-encodes to exactly the input"
    ) { bytes in
        let prefixed = ERC7821Batch.executeSelector + ERC7821Batch.singleBatchMode.bytes + bytes
        for candidate in [bytes, prefixed] {
            do throws(ERC7821BatchError) {
                let batch = try ERC7821Batch(decoding: candidate)
                // Only the canonical encoding is accepted, so the calls are exactly what the bytes say.
                FuzzCheck.expect(batch.calldata == candidate, "an accepted batch re-encodes differently")
                FuzzCheck.expect(
                    batch.calls.allSatisfy { $0.data.count <= candidate.count }, "a call's data longer than the input")
            } catch {
                FuzzCheck.boundedDescription(error)
            }
        }
    }
}
