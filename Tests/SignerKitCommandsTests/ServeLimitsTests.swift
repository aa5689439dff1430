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

    /// Raw sockets against the service process. Real time: the subject is the operating system's sockets; the
    /// waits are the attacker's half-second ticks (a few seconds in all) and a trickle bounded at 20 s, and no
    /// duration is asserted. Each legitimate request goes half a tick after the attacker's reconnections.
    @Test(
        "slow and hostile clients: 401 before the body, smuggling and NUL-cut tokens refused, trickles cut, slowloris")
    func slowAndHostileClients() async throws {
        let directory = try TemporaryDirectory()
        let limits =
            #""limits": {"maxConnections": 32, "maxConnectionsPerAddress": 16, "requestReceiveTimeoutMs": 1500}"#
        let service = try await ServiceProcess.start(config: try ServeTests.config(directory, ", \(limits)"))
        let port = try #require(service.url.port.map(UInt16.init))
        let call = #"{"jsonrpc":"2.0","id":1,"method":"eth_accounts"}"#
        let authorization = "Authorization: Bearer \(ServeTests.token)"
        let framed = "Content-Length: \(call.utf8.count)\r\n\r\n\(call)"
        let legitimate = "POST / HTTP/1.1\r\nHost: a\r\n\(authorization)\r\n\(framed)"
        let (early, smuggled, cut, trickleCut) = try await RawClient.offPool { () -> (Int?, Int?, Int?, Bool) in
            // No token, a body announced and never sent: 401 at once.
            let early = try RawClient(port: port)
            early.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5000\r\n\r\n")
            let smuggled = try RawClient(port: port)
            smuggled.send("POST / HTTP/1.1\r\nHost: a\r\n\(authorization)\r\nTransfer-Encoding: chunked\r\n\(framed)")
            // The token, then a NUL and junk: libmicrohttpd alone would pass the token cut at the NUL.
            let cut = try RawClient(port: port)
            cut.send(
                Array("POST / HTTP/1.1\r\nHost: a\r\n\(authorization)".utf8) + [0]
                    + Array("junk\r\n\(framed)".utf8))
            // A request with the token trickling one header line every 200 ms is cut at the receive deadline.
            let trickle = try RawClient(port: port)
            trickle.send("POST / HTTP/1.1\r\nHost: a\r\n\(authorization)\r\n")
            var line = 0
            let trickleCut = RealTime.pollBlocking(within: .seconds(20)) {
                line += 1
                usleep(200_000)
                return !trickle.send("X-Trickle-\(line): 1\r\n") || !trickle.isWaiting
            }
            return (
                early.readResponse()?.status, smuggled.readResponse()?.status, cut.readResponse()?.status, trickleCut
            )
        }
        #expect(early == 401)
        #expect(smuggled == 400)
        #expect(cut == 400)
        #expect(trickleCut, "the trickling request was cut")

        let attack = Slowloris(
            port: port,
            sources: [("127.0.0.1", .headers), ("127.0.0.2", .headers), ("127.0.0.3", .headers), ("127.0.0.4", .body)],
            socketsPerSource: 12, tick: .milliseconds(500))
        attack.start()
        let requests = 6
        let served = try await RawClient.offPool { () -> Int in
            var served = 0
            for _ in 0..<requests {
                guard attack.awaitMidTick(after: max(attack.ticks, 1)) else { break }
                let client = try RawClient(port: port, receiveTimeout: .seconds(5))
                client.send(legitimate)
                if client.readResponse()?.status == 200 { served += 1 }
            }
            return served
        }
        attack.stop()
        #expect(attack.peakHeld >= 20, "the attack held most of the 32 slots")
        #expect(served == requests, "slowloris: \(served)/\(requests) served")
        #expect(await service.stop() == 0)
    }
}
