import EthereumPrimitives
import SignerKit

extension PayFlow.Step: CustomStringConvertible {
    /// One readable line per step (a preview: one line per action), for logs and quick starts: ids, amounts
    /// and counts, never whole server answers. Text from the Pay server is abbreviated.
    public var description: String {
        switch self {
        case .paymentId(let id):
            return "payment \(EchoedText.quoted(id))"
        case .options(let response):
            let count = "\(response.options.count) option\(response.options.count == 1 ? "" : "s")"
            guard let info = response.info else { return "options: \(count)" }
            return "options: \(EchoedText.quoted(info.merchant.name)) asks \(info.amount) (\(info.status)); \(count)"
        case .optionSkipped(let option, let reason):
            return "option \(EchoedText.quoted(option.id)) skipped: \(EchoedText.abbreviated(reason))"
        case .optionSelected(let option):
            return
                "option \(EchoedText.quoted(option.id)) selected: \(option.amount) from \(EchoedText.quoted(option.account))"
        case .dataCollection(let option, let url):
            let page = url.map { " on \(EchoedText.abbreviated($0.absoluteString))" } ?? " (no page)"
            return "option \(EchoedText.quoted(option.id)) needs data collection\(page)"
        case .actions(let option, let actions):
            let list = actions.map { "\(EchoedText.abbreviated($0.method)) on \($0.chainId)" }.joined(separator: ", ")
            return
                "option \(EchoedText.quoted(option.id)): \(actions.count) action\(actions.count == 1 ? "" : "s") (\(list))"
        case .preview(_, let previews):
            return previews.map(\.line).joined(separator: "\n")
        case .signed(let signed):
            return "signed \(signed.count) action\(signed.count == 1 ? "" : "s"), every result verified"
        case .status(let status):
            return "status \(status.status)" + (status.isFinal ? " (final)" : "")
        case .finished(let status):
            // A transaction hash is shown whole (abbreviation would redact its 64 hex digits).
            let settled =
                status.info.map { info in
                    let transaction = (try? Bytes32(hex: info.txId))?.hex ?? EchoedText.quoted(info.txId)
                    return " (transaction \(transaction), \(info.optionAmount))"
                } ?? ""
            return "finished: \(status.status)\(settled)"
        }
    }
}
