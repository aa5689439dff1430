import EthereumPrimitives
import SignerKit

/// The chain a signing call is for: a transaction's `chainId`, typed data's `domain.chainId`, else the
/// service's default chain.
enum ServiceChains {
    static func chain(of method: RpcMethod, params: [JSONValue], default fallback: ChainID?)
        -> Result<ChainID, JSONRPCError>
    {
        let named: JSONValue?
        switch method {
        case .signTransaction, .sendTransaction, .sponsorTransaction:
            named = params.first?["chainId"]
        case .signTypedDataV4:
            var document = params.count > 1 ? params[1] : nil
            if case .string(let text)? = document { document = try? JSONValue(parsing: text) }
            named = document?["domain"]?["chainId"]
        case .personalSign:
            named = nil
        }
        guard let named, named != .null else {
            guard let fallback else {
                return .failure(.invalidParams("no chain id in the params and no chainId configured"))
            }
            return .success(fallback)
        }
        let text: String
        switch named {
        case .string(let string): text = string
        case .number(let number): text = number
        default: return .failure(.invalidParams("chainId must be a number or a string"))
        }
        guard let id = try? UInt256(text: text), let chain = try? ChainID(eip155ChainID: id) else {
            return .failure(
                .invalidParams("chainId \(EchoedText.abbreviated(text).debugDescription) is not a chain id"))
        }
        return .success(chain)
    }
}
