import EthereumPrimitives
import Foundation
import SignerKitCurl
import SignerKitTestSupport
import Testing

@Suite(
    "signerkit serve: limits",
    .enabled(if: Binary.url != nil, "the signerkit executable is not next to the test bundle"))
struct ServeLimitsTests {
    let serve = ServeTests()

    @Test("body, batch, time and concurrency limits: 413, -32004, -32003 from a silent upstream, 503 with Retry-After")
    func limits() async throws {
        let node = try await LocalEVM.start(chainId: 2021)
        defer { node.stop() }
        let upstream = try await FaultServer.start(upstream: node.url)
        defer { upstream.stop() }
        let directory = try TemporaryDirectory()
        let limits =
            #""limits": {"maxBodyBytes": 1024, "maxBatchSize": 2, "maxConcurrentRequests": 2, "requestTimeoutMs": 3000}"#
        let config = try ServeTests.config(
            directory, #", "upstream": {"eip155:2021": "\#(upstream.url.absoluteString)"}, \#(limits)"#)
        let service = try await ServiceProcess.start(config: config)

        // A body over maxBodyBytes never reaches JSON-RPC.
        let padding = String(repeating: " ", count: 1100)
        let large = try await serve.post(service, #"{"jsonrpc":"2.0","id":1,"method":"eth_accounts"}"# + padding)
        #expect(large.status == 413)

        // A batch over maxBatchSize is one error.
        let call = #"{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}"#
        let batch = try JSONValue(parsing: try await serve.post(service, "[\(call),\(call),\(call)]").body)
        #expect(batch["error"]?["code"] == .number("-32004"), "\(batch.serialized)")

        // Two calls held by an upstream that never answers fill maxConcurrentRequests.
        try await upstream.add(FaultRule(.hang, rpcMethod: "eth_blockNumber", times: -1))
        async let first = serve.call(service, "eth_blockNumber", id: 1)
        async let second = serve.call(service, "eth_blockNumber", id: 2)
        _ = try await RealTime.poll(within: .seconds(20)) {
            try await upstream.requests().filter({ $0.rpcMethod == "eth_blockNumber" }).count >= 2
        }
        let third = try await serve.post(service, #"{"jsonrpc":"2.0","id":3,"method":"eth_accounts"}"#)
        #expect(third.status == 503, "a third request while two run")
        #expect(third.header("Retry-After") == "1")

        // requestTimeoutMs ends the held calls with the upstream error; the slots are free again.
        let held = try await [first, second]
        for answer in held {
            #expect(answer["error"]?["code"] == .number("-32003"), "\(answer.serialized)")
        }
        #expect(try await serve.call(service, "eth_accounts")["result"] == .array([.string(Actions.address)]))

        let metrics = try await CurlHTTPTransport().send(
            HTTPRequest(method: "GET", url: service.url.appendingPathComponent("metrics"), timeout: .seconds(10)))
        let exposition = String(decoding: metrics.body, as: UTF8.self)
        #expect(exposition.contains("signerkit_overloaded_total 1\n"), "\(exposition)")
        #expect(exposition.contains("signerkit_upstream_errors_total 2\n"), "\(exposition)")
        #expect(await service.stop() == 0)
    }
}
