import EthereumPrimitives
import SignerKit
import SignerKitHTTPServer
import SignerKitTestSupport
import Testing

/// `wallet_getCapabilities` through the service's HTTP handler: EIP-5792's params and answer shape, and the
/// client's rights on the account and the chains.
@Suite("wallet_getCapabilities in the service")
struct CapabilitiesServiceTests {
    @Test("answers keyed by hex chain id; a client is refused another account and another chain")
    func shapeAndRights() async throws {
        let allowedChains = #"["eip155:2021","eip155:1"]"#
        let deployer = try TestKeys.signer(TestKeys.betaHex)
        let node = try await LocalEVM.start(
            fund: [try Address(TestKeys.alphaAddress), deployer.address], chainId: 2021)
        let executor = try await BatchExecutorDeployment.deploy(on: node, deployerKeyHex: TestKeys.betaHex)
        let service = try await InProcessService.start(
            node: node, clientMembers: #","accounts":["\#(TestKeys.alphaAddress)"],"chains":\#(allowedChains)"#,
            policies: [AllowedDelegates([executor.address])])
        defer { service.node.stop() }

        func call(_ params: String) async throws -> JSONValue {
            let response = await service.post(
                #"{"jsonrpc":"2.0","id":7,"method":"wallet_getCapabilities","params":\#(params)}"#)
            #expect(response.status == 200)
            return try JSONValue(parsing: response.body)
        }

        // The alpha key has no code on the node's chain (2021 = 0x7e5) and the executor is allowed: ready; no
        // node for chain 1: unsupported. Keys in chain-id order.
        let answer = try await call(#"["\#(TestKeys.alphaAddress)",["0x7e5","0x1"]]"#)
        #expect(
            answer["result"]?.serialized
                == #"{"0x1":{"atomic":{"status":"unsupported"}},"0x7e5":{"atomic":{"status":"ready"}}}"#)
        // Without a chain list: the client's chains.
        let all = try await call(#"["\#(TestKeys.alphaAddress)"]"#)
        #expect(all["result"] == answer["result"])

        // Another account, and a chain the client may not use: forbidden, nothing answered.
        let other = try await call(#"["0x00000000000000000000000000000000000000bb",["0x7e5"]]"#)
        #expect(other["error"]?["code"] == .number("-32001"))
        #expect(other["result"] == nil)
        let chain = try await call(#"["\#(TestKeys.alphaAddress)",["0x2105"]]"#)
        #expect(chain["error"]?["code"] == .number("-32001"))
        let malformed = try await call(#"["\#(TestKeys.alphaAddress)",["8453"]]"#)
        #expect(malformed["error"]?["code"] == .number("-32602"))
    }
}
