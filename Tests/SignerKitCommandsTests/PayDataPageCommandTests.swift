import EthereumPrimitives
import Foundation
import SignerKitTestSupport
import Synchronization
import Testing
import WalletConnectPay
import WalletConnectPayTesting

@testable import SignerKitCommands

/// `signerkit pay --data-page` in-process: the page's full address on stderr, the form's verdict relayed by
/// the page (played here by raw requests, as the browser would send them), the usual stdout lines.
@Suite("signerkit pay --data-page")
struct PayDataPageCommandTests {
    /// Captures like ``CapturedIO`` and hands each `open: URL` line on stderr to ``pages``.
    final class PageIO: CommandIO {
        let captured = CapturedIO()
        let pages = Arrivals<URL>()
        var environment: [String: String] { [:] }

        func readStandardInput() throws -> [UInt8] { [] }
        func readStandardInputLine() throws -> [UInt8]? { nil }
        func writeStandardOutput(_ text: String) { captured.writeStandardOutput(text) }
        func writeStandardError(_ text: String) {
            captured.writeStandardError(text)
            if text.hasPrefix("open: "), let url = URL(string: String(text.dropFirst(6).dropLast())) {
                pages.append(url)
            }
        }
    }

    /// POSTs `data` from the form's origin to the page's verdict path, as the page's script does.
    static func relay(_ data: String, formOrigin: String, page: URL) async throws -> String {
        guard let port = page.port else { throw HeadlessChromium.Failure("no port in \(page)") }
        let body = JSONValue.object(JSONObject(["origin": .string(formOrigin), "data": .string(data)])).serialized
        let text =
            "POST \(page.path)/message HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        return try await RawClient.offPool {
            let client = try RawClient(port: UInt16(port))
            _ = client.send(text)
            return client.readResponse()?.body ?? ""
        }
    }

    /// Runs `pay` for a data-collection payment (with `flags`: the page is the default, `--data-page` asks for
    /// it); `answer` plays the form once the page is up.
    static func run(
        flags: [String] = ["--data-page"], dataCollectionError: String? = nil,
        answer: @escaping @Sendable (LocalPayService, URL) async throws -> Void
    ) async throws -> (CommandResult, LocalPayService, String) {
        let service = try LocalPayService(
            configuration: LocalPayService.Configuration(pollInMs: 30, processingTime: .milliseconds(100)))
        let id = service.createPayment(.init(optionKinds: [.dataCollection], dataCollectionError: dataCollectionError))
        let directory = try TemporaryDirectory()
        let key = try PayCommandTests.keyFile(directory)
        let io = PageIO()
        let command = Task {
            await SignerKitCommandLine.run(
                ["pay", id, "--key-file", key, "--api-url", service.baseURL.absoluteString] + flags, io: io)
        }
        let page = try #require(try await io.pages.atLeast(1).first)
        try await answer(service, page)
        let status = await command.value
        return (CommandResult(status: status, stdout: io.captured.output, stderr: io.captured.error), service, id)
    }

    @Test(
        "IC_COMPLETE from the form: exit 0, the page's full URL on stderr, confirm without collectedData",
        arguments: [[], ["--data-page"]])
    func complete(flags: [String]) async throws {
        let (result, service, id) = try await Self.run(flags: flags) { service, page in
            // The form sends the answers itself, then says so.
            let id = try #require(service.requests.compactMap(\.paymentId).first)
            service.submitCollectedData(
                paymentId: id,
                CollectedData(fields: [
                    .init(id: "fullName", value: "Grace Hopper"), .init(id: "dob", value: "1906-12-09"),
                    .init(id: "tosConfirmed", value: "true"),
                ]))
            let origin = service.baseURL.absoluteString
            #expect(try await Self.relay(#"{"type":"IC_READY"}"#, formOrigin: origin, page: page).contains("ignored"))
            #expect(
                try await Self.relay(#"{"type":"IC_COMPLETE"}"#, formOrigin: origin, page: page).contains("complete"))
        }
        defer { service.stop() }
        #expect(result.status == 0, "\(result)")
        let line = try #require(result.stderrLines.first)
        #expect(line.wholeMatch(of: /open: http:\/\/127\.0\.0\.1:\d+\/pay\/[0-9a-f]{64}/) != nil, "\(result)")
        #expect(result.stdoutLines.contains { $0.hasPrefix("data collection: http://127.0.0.1:") })
        #expect(result.stdoutLines.last == "final: succeeded")
        let confirm = try #require(service.requests(to: .confirm).first)
        #expect(!confirm.body.contains("collectedData"))
        #expect(service.confirmationCount(paymentId: id) == 1)
    }

    @Test("IC_ERROR from the form: exit 65 with its text, nothing confirmed")
    func error() async throws {
        let (result, service, id) = try await Self.run { service, page in
            let origin = service.baseURL.absoluteString
            let answer = try await Self.relay(
                #"{"type":"IC_ERROR","error":"sanctions screening failed"}"#, formOrigin: origin, page: page)
            #expect(answer.contains("error"))
        }
        defer { service.stop() }
        // The invalid-input contract, after the page's line: exit 65, nothing on stdout, one error line.
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderrLines.count == 2 && result.stderrLines[0].hasPrefix("open: "), "\(result)")
        #expect(
            result.stderrLines.last
                == #"error: option opt_dataCollection_8453_0: the data-collection page reported an error: "sanctions screening failed""#,
            "\(result)")
        #expect(service.confirmationCount(paymentId: id) == 0)
    }
}
