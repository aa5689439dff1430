// EXPECT: compiles
//
// Control for the compile-fail files: the same imports and compiler flags, using SignedActions the
// way code outside SignerKit may (from the dispatcher, read-only). If this stops compiling, the
// compile-fail checks prove nothing, so scripts/compile-fail-check.sh fails.
import EthereumPrimitives
import SignerKit

func confirm(_ actions: [WalletRpcAction], with dispatcher: RpcDispatcher) async throws(DispatchError) -> [String] {
    let signed: SignedActions = try await dispatcher.sign(actions: actions)
    guard signed.answers(actions), signed.count == actions.count else { return [] }
    let outcomes: [ActionResult] = signed.outcomes
    return outcomes.map(\.resultString) == signed.results ? signed.results : []
}

func makeAction() throws -> WalletRpcAction {
    WalletRpcAction(
        chainId: try ChainID("eip155:8453"), method: .personalSign,
        params: #"["0x68656c6c6f","0x2c7536e3605d9c16a7a3d7b1898e529396a65c23"]"#)
}
