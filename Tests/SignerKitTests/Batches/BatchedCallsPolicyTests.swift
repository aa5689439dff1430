import EthereumPrimitives
import SignerKit
import SoftwareSigner
import Testing

/// Policies see every call of an ERC-7821 batch: a transaction from the account to itself calling `execute`
/// is judged call by call (a cap summed over the calls, a recipient rule on each), previewed as
/// `batched-calls` with one preview per call, and refused when SignerKit cannot read the batch strictly.
@Suite("Policies judge each call of a batch")
struct BatchedCallsPolicyTests {
    let key = SoftwareKeySigner.generate()
    let base = ChainID(eip155: 8453)
    let token: Address
    let shop: Address

    init() throws {
        token = try Address("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")
        shop = try Address("0x00000000000000000000000000000000000005a0")
    }

    func transfer(_ to: Address, _ amount: UInt64) -> ERC7821Batch.Call {
        ERC7821Batch.Call(to: token, data: ERC20Calldata.transferSelector + to.word.bytes + UInt256(amount).word.bytes)
    }

    /// `eth_signTransaction` of `data` from the key to itself (complete, so no node is needed).
    func selfCall(_ data: [UInt8]) -> WalletRpcAction {
        let tx = """
            {"from":"\(key.address.lowercased)","to":"\(key.address.lowercased)","data":"\(Hex.encode(data))",
             "nonce":"0x0","gas":"0x30d40","maxFeePerGas":"0x77359400","maxPriorityFeePerGas":"0x3b9aca00"}
            """
        return WalletRpcAction(chainId: base, method: .signTransaction, params: "[\(tx)]")
    }

    @Test("a token cap sums over the calls of one batch transaction and names the call that crosses it")
    func capSumsOverCalls() async throws {
        let dispatcher = RpcDispatcher {
            TokenSpendCap([.init(chain: base, token: token, maximum: 300)])
        }
        try dispatcher.register(key)
        let within = selfCall(ERC7821Batch(calls: [transfer(shop, 100), transfer(shop, 200)]).calldata)
        _ = try await dispatcher.sign(actions: [within])
        let over = selfCall(ERC7821Batch(calls: [transfer(shop, 200), transfer(shop, 200)]).calldata)
        do {
            _ = try await dispatcher.sign(actions: [over])
            Issue.record("a batch over the cap was signed")
        } catch {
            guard case .policyViolation(let policy, let reason) = error.kind else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(policy == "TokenSpendCap")
            #expect(reason.contains("over the cap"))
        }
    }

    @Test("a per-call rule judges each call (naming it); a nested batch is judged too")
    func ruleOnEachCall() async throws {
        let stranger = try Address("0x000000000000000000000000000000000000dEaD")
        let dispatcher = RpcDispatcher { AllowedRecipients([shop]) }
        try dispatcher.register(key)
        _ = try await dispatcher.sign(actions: [selfCall(ERC7821Batch(calls: [transfer(shop, 1)]).calldata)])
        let second = selfCall(ERC7821Batch(calls: [transfer(shop, 1), transfer(stranger, 1)]).calldata)
        await #expect {
            _ = try await dispatcher.sign(actions: [second])
        } throws: { error in
            guard let error = error as? DispatchError, case .policyViolation(_, let reason) = error.kind else {
                return false
            }
            return reason.hasPrefix("call[1]: ")
        }
        // A call to the account itself executing another batch: its calls are judged as well.
        let inner = ERC7821Batch(calls: [transfer(stranger, 1)]).calldata
        let nested = selfCall(
            ERC7821Batch(calls: [transfer(shop, 1), ERC7821Batch.Call(to: key.address, data: inner)]).calldata)
        await #expect {
            _ = try await dispatcher.sign(actions: [nested])
        } throws: { error in
            guard let error = error as? DispatchError, case .policyViolation(_, let reason) = error.kind else {
                return false
            }
            return reason.hasPrefix("call[1]: call[0]: ")
        }
    }

    @Test("the preview is batched-calls with each call's preview; an execute SignerKit cannot read is refused")
    func previewAndStrictness() throws {
        let dispatcher = RpcDispatcher()
        let batch = ERC7821Batch(calls: [
            transfer(shop, 5), ERC7821Batch.Call(to: shop, data: [0xde, 0xad, 0xbe, 0xef]),
        ])
        let preview = try #require(try dispatcher.preview(actions: [selfCall(batch.calldata)]).first)
        #expect(preview.kind == .batchedCalls)
        #expect(preview.calls.map(\.kind) == [.erc20Transfer, .contractCall])
        #expect(preview.calls[0].recipient == shop)
        #expect(preview.warnings.contains(.unrecognized), "a call that does not decode is flagged on the batch")
        #expect(preview.line.contains("call[0]: erc20-transfer"))
        #expect(preview.json["calls"]?.arrayValue?.count == 2)

        var tampered = batch.calldata
        tampered[4 + 31] = 0x02  // not the single-batch mode
        #expect {
            _ = try dispatcher.preview(actions: [selfCall(tampered)])
        } throws: { error in
            guard let error = error as? DispatchError, case .invalidParams(let text) = error.kind else { return false }
            return text.contains("cannot read, so cannot judge")
        }
    }
}
