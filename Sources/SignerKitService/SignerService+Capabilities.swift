import EthereumPrimitives
import SignerKit

extension SignerService {
    /// EIP-5792's `wallet_getCapabilities`: `[address]` or `[address, [chainIds as hex]]` → an object keyed
    /// by hex chain id, `{"0x2105":{"atomic":{"status":"ready"}}}`, from
    /// ``RpcDispatcher/capabilities(of:chains:deadline:)``.
    ///
    /// The client must be allowed the account (its `accounts`) and every chain it names (its `chains`);
    /// without a chain list the answer covers the client's chains when it has a list, else every chain
    /// the dispatcher knows.
    func capabilities(_ call: ServiceCall, client: ServiceClient, deadline: ContinuousClock.Instant) async -> Result<
        JSONValue, JSONRPCError
    > {
        let account: Address
        let chains: [ChainID]?
        switch Self.capabilitiesParams(call.params) {
        case .success(let read): (account, chains) = read
        case .failure(let error): return .failure(error)
        }
        if let allowed = client.accounts, !allowed.contains(account) {
            return .failure(.forbidden("client \(client.name) may not use \(account)"))
        }
        for chain in chains ?? [] {
            if let refusal = Self.refusal(of: client, chain: chain) { return .failure(.forbidden(refusal)) }
        }
        let asked = chains ?? client.chains.map { Array($0.filter(\.isEIP155)) }
        let answers: [ChainID: AccountCapabilities]
        do {
            answers = try await dispatcher.capabilities(of: account, chains: asked, deadline: deadline)
        } catch {
            switch error {
            case .unknownAccount: return .failure(.forbidden(error.description))
            case .unsupportedChain: return .failure(.invalidParams(error.description))
            case .node: return .failure(.upstream(error.description))
            }
        }
        let ordered = answers.compactMap { chain, capabilities in
            chain.eip155ChainID.map { (id: $0, capabilities: capabilities) }
        }.sorted { $0.id < $1.id }
        return .success(
            .object(
                JSONObject(
                    members: ordered.map { JSONObject.Member(key: $0.id.hexQuantity, value: $0.capabilities.json) })))
    }

    /// The account and the optional chain list of `wallet_getCapabilities`' params.
    static func capabilitiesParams(_ params: [JSONValue]) -> Result<(Address, [ChainID]?), JSONRPCError> {
        guard (1...2).contains(params.count), case .string(let text) = params[0],
            let account = try? Address(text)
        else { return .failure(.invalidParams("expected [address] or [address, [chainIds]]")) }
        guard params.count == 2, params[1] != .null else { return .success((account, nil)) }
        guard case .array(let ids) = params[1] else {
            return .failure(.invalidParams("chainIds must be an array of hex chain ids"))
        }
        var chains: [ChainID] = []
        for id in ids {
            guard case .string(let hex) = id, hex.hasPrefix("0x"), let value = try? UInt256(text: hex),
                let chain = try? ChainID(eip155ChainID: value)
            else {
                return .failure(
                    .invalidParams("\(EchoedText.abbreviated(id.serialized).debugDescription) is not a hex chain id"))
            }
            chains.append(chain)
        }
        return .success((account, chains))
    }
}
