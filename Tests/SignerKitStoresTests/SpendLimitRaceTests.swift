import EthereumPrimitives
import SignerKit
import SoftwareSigner
import Testing

/// Spend limits shared by two dispatchers on one store (two signer-service instances on one PostgreSQL
/// database, or two processes on one SQLite file): racing requests are admitted exactly up to the limit.
@Suite("Spend limits raced by two instances (SQLite, PostgreSQL)")
struct SpendLimitRaceTests {
    /// How a limit counts in a race.
    enum Counting: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Per account, a calendar day.
        case accountPerDay
        /// Per client, a rolling day (the subject's buckets summed under one lock).
        case clientRollingDay

        var testDescription: String { rawValue }
    }

    @Test(
        "12 concurrent payments of 100 against a limit of 500: exactly 5 admitted",
        arguments: StoreBackend.allCases, Counting.allCases)
    func exactlyTheLimit(backend: StoreBackend, counting: Counting) async throws {
        let open = try await backend.usageStores()
        let base = ChainID(eip155: 8453)
        let key = SoftwareKeySigner.generate()
        let shop = try Address("0x00000000000000000000000000000000000005a0")
        var dispatchers: [RpcDispatcher] = []
        for _ in 0..<2 {
            let limit = SpendLimit(
                [.init(chain: base, asset: .native, maximum: 500)], rolling: counting == .clientRollingDay,
                per: counting == .clientRollingDay ? .client : .account, store: try await open())
            let dispatcher = RpcDispatcher { limit }
            try dispatcher.register(key)
            dispatchers.append(dispatcher)
        }
        let action = WalletRpcAction(
            chainId: base, method: .signTransaction,
            params:
                #"[{"from":"\#(key.address.lowercased)","to":"\#(shop.lowercased)","value":"0x64","nonce":"0x0","gas":"0x5208","maxFeePerGas":"0x77359400","maxPriorityFeePerGas":"0x3b9aca00"}]"#
        )
        let outcomes = await withTaskGroup(of: String.self) { group in
            for index in 0..<12 {
                let dispatcher = dispatchers[index % 2]
                group.addTask {
                    do throws(DispatchError) {
                        _ = try await dispatcher.sign(dispatcher.prepare(actions: [action], caller: "payouts"))
                        return "signed"
                    } catch {
                        guard case .policyViolation(let policy, _) = error.kind else { return "\(error)" }
                        return policy
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == "signed" }.count == 5, "\(outcomes)")
        #expect(outcomes.filter { $0 == "SpendLimit" }.count == 7, "every other one refused by the limit: \(outcomes)")
    }
}
