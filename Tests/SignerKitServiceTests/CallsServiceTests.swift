import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitHTTPServer
import SignerKitTestSupport
import Testing

/// `wallet_sendCalls`, `wallet_getCallsStatus` and `wallet_showCallsStatus` through the service's HTTP handler:
/// EIP-5792's shapes and codes, ids per client, the audit intent before signing, and the client's rights.
@Suite("wallet_sendCalls in the service")
struct CallsServiceTests {
    @Test(
        "an atomic batch through the account's own delegation: the id, status 200, the same id once; 5760, 5730, 4200")
    func atomicBatch() async throws {
        let deployer = try TestKeys.signer(TestKeys.betaHex)
        let alpha = try Address(TestKeys.alphaAddress)
        let node = try await LocalEVM.start(fund: [alpha, deployer.address], chainId: 2021)
        let executor = try await BatchExecutorDeployment.deploy(on: node, deployerKeyHex: TestKeys.betaHex)
        let service = try await InProcessService.start(node: node, policies: [AllowedDelegates([executor.address])])
        defer { service.node.stop() }

        func call(_ method: String, _ params: String) async throws -> JSONValue {
            let response = await service.post(#"{"jsonrpc":"2.0","id":3,"method":"\#(method)","params":\#(params)}"#)
            #expect(response.status == 200)
            return try JSONValue(parsing: response.body)
        }
        let payee = InProcessService.payee
        let batch = #"""
            {"version":"2.0.0","id":"order-7","from":"\#(TestKeys.alphaAddress)","chainId":"0x7e5","atomicRequired":true,
             "calls":[{"to":"\#(payee)","value":"0x10"},{"to":"\#(InProcessService.otherPayee)","value":"0x20"}]}
            """#
        let intents = service.audit.records.count
        let sent = try await call("wallet_sendCalls", "[\(batch)]")
        #expect(sent["result"]?.serialized == #"{"id":"order-7"}"#, "\(sent)")
        #expect(service.audit.records.count > intents, "an intent record was written before signing")
        func balance(_ address: String) async throws -> JSONValue {
            try await node.call("eth_getBalance", [.string(address), .string("latest")])
        }
        #expect(try await balance(payee) == .string("0x10"))
        #expect(try await balance(InProcessService.otherPayee) == .string("0x20"))
        #expect(service.audit.records.contains { $0.intent && $0.method == "wallet_sendCalls" })
        let mined = try await service.minedCount()

        let status = try await call("wallet_getCallsStatus", #"["order-7"]"#)
        #expect(status["result"]?["status"] == .number("200"))
        #expect(status["result"]?["atomic"] == .bool(true))
        #expect(status["result"]?["id"] == .string("order-7"))
        #expect(status["result"]?["chainId"] == .string("0x7e5"))
        #expect(status["result"]?["receipts"]?.arrayValue?.count == 1)

        // The same request again: the same id, nothing sent.
        let again = try await call("wallet_sendCalls", "[\(batch)]")
        #expect(again["result"]?["id"] == .string("order-7"))
        #expect(try await service.minedCount() == mined)
        // The id with other calls: 5720.
        let other = batch.replacingOccurrences(of: "0x20", with: "0x21")
        #expect(try await call("wallet_sendCalls", "[\(other)]")["error"]?["code"] == .number("5720"))

        #expect(try await call("wallet_getCallsStatus", #"["nope"]"#)["error"]?["code"] == .number("5730"))
        #expect(try await call("wallet_showCallsStatus", #"["order-7"]"#)["error"]?["code"] == .number("4200"))
        #expect(try await call("wallet_sendCalls", #"[{"version":"2.0.0"}]"#)["error"]?["code"] == .number("-32602"))
        let optional = batch.replacingOccurrences(of: #""id":"order-7","#, with: #""capabilities":{"x":{}},"#)
        #expect(try await call("wallet_sendCalls", "[\(optional)]")["error"]?["code"] == .number("5700"))
    }

    @Test(
        "5760 with nothing sent; one transaction per call; an Idempotency-Key without id sends once; another account is forbidden"
    )
    func refusals() async throws {
        let service = try await InProcessService.start(clientMembers: #","accounts":["\#(TestKeys.alphaAddress)"]"#)
        defer { service.node.stop() }
        func call(_ params: String) async throws -> JSONValue {
            let response = await service.post(
                #"{"jsonrpc":"2.0","id":3,"method":"wallet_sendCalls","params":\#(params)}"#)
            return try JSONValue(parsing: response.body)
        }
        let batch = #"""
            {"version":"2.0.0","from":"\#(TestKeys.alphaAddress)","chainId":"0x7e5","atomicRequired":true,
             "calls":[{"to":"\#(InProcessService.payee)","value":"0x10"}]}
            """#
        #expect(try await call("[\(batch)]")["error"]?["code"] == .number("5760"))
        #expect(try await service.minedCount() == 0)
        // Not atomic: one transaction per call, and a generated id.
        let sequential = batch.replacingOccurrences(of: #""atomicRequired":true"#, with: #""atomicRequired":false"#)
        let sent = try await call("[\(sequential)]")
        let id = try #require(sent["result"]?["id"]?.stringValue)
        #expect(id.count == 66)
        #expect(try await service.minedCount() == 1)
        // Without an id but with an Idempotency-Key: a retry of the request is the same batch, sent once — even
        // when no stored answer replays it (the service itself, below the HTTP handler's idempotency store).
        let body = Array(#"{"jsonrpc":"2.0","id":4,"method":"wallet_sendCalls","params":[\#(sequential)]}"#.utf8)
        let signer = service.handler.service
        let client = try #require(signer.clients.first)
        func send() async throws -> JSONValue {
            try JSONValue(
                parsing: try #require(await signer.respond(body: body, client: client, idempotencyKey: "k").body))
        }
        let first = try await send()
        let mined = try await service.minedCount()
        let retried = try await send()
        #expect(first["result"]?["id"] != nil && retried["result"]?["id"] == first["result"]?["id"])
        #expect(mined == 2)
        #expect(try await service.minedCount() == mined)
        let stranger = sequential.replacingOccurrences(
            of: TestKeys.alphaAddress, with: "0x00000000000000000000000000000000000000cc")
        #expect(try await call("[\(stranger)]")["error"]?["code"] == .number("-32001"))
    }

    @Test("a batch's audit record keeps its calls as actions (for replay) and a shadow policy's verdicts on them")
    func batchRecordForReplay() async throws {
        let directory = try InProcessService.temporaryDirectory()
        let keyFile = directory.appendingPathComponent("checkpoint.hex").path
        try Data(TestKeys.betaHex.utf8).write(to: URL(fileURLWithPath: keyFile))
        chmod(keyFile, 0o600)
        let shadow = try PolicyFile.policies(jsonText: #"{"nativeValueCap": "0x18"}"#)
        let service = try await InProcessService.start(
            directory: directory, members: #", "ledger": {"checkpointKeyFile": "checkpoint.hex"}"#,
            shadowPolicies: shadow)
        defer { service.node.stop() }
        let batch = #"""
            {"version":"2.0.0","from":"\#(TestKeys.alphaAddress)","chainId":"0x7e5","atomicRequired":false,
             "calls":[{"to":"\#(InProcessService.payee)","value":"0x10"},{"to":"\#(InProcessService.otherPayee)","value":"0x20"}]}
            """#
        let response = await service.post(#"{"jsonrpc":"2.0","id":3,"method":"wallet_sendCalls","params":[\#(batch)]}"#)
        #expect(
            try JSONValue(parsing: response.body)["result"]?["id"] != nil,
            "\(String(decoding: response.body, as: UTF8.self))")
        let record = try #require(service.audit.records.last { $0.method == "wallet_sendCalls" && !$0.intent })
        #expect(record.actions.count == 2)
        let values = record.actions.map { action in
            (try? JSONValue(parsing: action.params))?.arrayValue?.first?["value"]?.stringValue
        }
        #expect(values == ["0x10", "0x20"], "\(record.actions)")
        let sends = record.actions.filter {
            $0.method == RpcMethod.sendTransaction.rawValue && $0.chainId == InProcessService.chain
        }
        #expect(sends.count == 2)
        // Enforced: nothing refuses; in shadow, the cap refuses the second call — recorded, not enforced.
        let verdicts = try #require(record.shadowVerdicts)
        #expect(verdicts.map(\.action) == [1] && verdicts.map(\.rule) == ["NativeValueCap"], "\(verdicts)")
        #expect(try await service.minedCount() == 2)
    }
}

/// The `safes` member of the service's configuration: checked against the configured keys.
@Suite("Safes in the service configuration")
struct ServiceSafesConfigurationTests {
    @Test("owners and the submitter must be configured keys; submitter and multiSendCallOnly go together")
    func refusals() async throws {
        let safe = "0x00000000000000000000000000000000000005af"
        let stranger = "0x00000000000000000000000000000000000000cc"
        let cases: [(members: String, names: String)] = [
            (#","safes":[{"address":"\#(safe)","owners":["\#(stranger)"],"threshold":1}]"#, "safes[0].owners"),
            (
                #","safes":[{"address":"\#(safe)","owners":["\#(TestKeys.alphaAddress)"],"threshold":1,"multiSendCallOnly":"\#(safe)","submitter":"\#(stranger)"}]"#,
                "safes[0].submitter"
            ),
            (
                #","safes":[{"address":"\#(safe)","owners":["\#(TestKeys.alphaAddress)"],"threshold":1,"submitter":"\#(stranger)"}]"#,
                "needs multiSendCallOnly"
            ),
            (#","safes":[{"address":"\#(safe)","owners":["\#(TestKeys.alphaAddress)"],"threshold":2}]"#, "threshold"),
        ]
        let node = try await LocalEVM.start(fund: [try Address(TestKeys.alphaAddress)], chainId: 2021)
        defer { node.stop() }
        for (members, names) in cases {
            await #expect {
                _ = try await InProcessService.start(node: node, members: members)
            } throws: { error in
                "\(error)".contains(names)
            }
        }
    }
}
