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

    static let walletSendCalls = FuzzTarget(
        name: "wallet-send-calls",
        summary: "wallet_sendCalls params (EIP-5792) as JSON text: a typed error naming the field and its code, or a "
            + "request within the limits whose digest and calls read back"
    ) { bytes in
        guard let value = try? JSONValue(parsing: bytes) else { return }
        do throws(CallBatchError) {
            let request = try CallBatchRequest(json: value)
            FuzzCheck.expect(
                (1...CallBatchRequest.maximumCalls).contains(request.calls.count), "a request outside the call limits")
            FuzzCheck.expect(
                request.id.map { !$0.isEmpty && $0.utf8.count <= CallBatchRequest.maximumIDLength } ?? true,
                "an id outside the limits")
            let again = try CallBatchRequest(
                id: request.id, from: request.from, chain: request.chain, atomicRequired: request.atomicRequired,
                calls: request.calls)
            FuzzCheck.expect(again.digest == request.digest, "the digest of the same request differs")
        } catch {
            FuzzCheck.expect([-32602, 5700, 5710, 5740].contains(error.code), "an unexpected code \(error.code)")
            FuzzCheck.boundedDescription(error)
        }
    }
}
