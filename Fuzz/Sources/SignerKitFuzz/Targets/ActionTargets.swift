import EthereumPrimitives
import SignerKit

/// Wallet RPC action lists (bare `{chainId, method, params}` and Pay's `walletRpc` shapes) and what the
/// dispatcher reads from their params before anything is signed.
enum ActionTargets {
    /// A dispatcher with no backend: previews need none.
    static let dispatcher = RpcDispatcher()

    static let walletRpcActions = FuzzTarget(
        name: "wallet-rpc-actions",
        summary: "WalletRpcAction lists in both shapes, then RpcDispatcher.preview: one preview per action, "
            + "in order, or one typed error naming the index"
    ) { bytes in
        guard let text = FuzzCheck.text(bytes) else { return }
        let actions: [WalletRpcAction]
        do throws(ActionFormatError) {
            actions = try WalletRpcAction.list(jsonText: text)
        } catch {
            FuzzCheck.boundedDescription(error)
            return
        }
        for action in actions {
            let bare = JSONValue.object(
                JSONObject([
                    "chainId": .string(action.chainId.description), "method": .string(action.method),
                    "params": .string(action.params),
                ]))
            FuzzCheck.expect((try? WalletRpcAction(json: bare)) == action, "an action does not round-trip")
        }
        do throws(DispatchError) {
            let previews = try dispatcher.preview(actions: actions)
            FuzzCheck.expect(previews.count == actions.count, "\(previews.count) previews of \(actions.count) actions")
            for (index, preview) in previews.enumerated() {
                FuzzCheck.expect(preview.index == index, "preview \(index) says index \(preview.index)")
                FuzzCheck.expect(preview.chain == actions[index].chainId, "preview \(index) names another chain")
                let json = preview.json.serialized
                FuzzCheck.expect((try? JSONValue(parsing: json)) != nil, "a preview's JSON does not parse")
            }
        } catch {
            FuzzCheck.boundedDescription(error)
            if let index = error.index {
                FuzzCheck.expect(actions.indices.contains(index), "index \(index) out of range")
            }
        }
    }
}
