import Dispatch
import EthereumPrimitives
import Foundation
import SignerKitCurl
import Synchronization

/// A whole HTTP answer on a real socket, read by libcurl and `CurlHTTPTransport`: status line, headers
/// (`Content-Length`, `Transfer-Encoding`, `Location`, `Retry-After`), body.
enum HTTPWireTargets {
    static let responder = FuzzCheck.constant("loopback responder") { LoopbackResponder() }
    static let transport = CurlHTTPTransport()
    static let maxBody = 4096

    static let httpResponse = FuzzTarget(
        name: "http-response",
        summary: "a fuzzed HTTP answer served on loopback, read by libcurl and CurlHTTPTransport: a status of "
            + "100-999 and no 3xx, bounded headers and body, or a typed error saying whether the request was sent"
    ) { bytes in
        responder.setAnswer(bytes)
        let url = FuzzCheck.constant("responder URL") { URL(string: "http://127.0.0.1:\(responder.port)/fuzz") }
        let request = HTTPRequest(
            method: "GET", url: url, timeout: .seconds(5), connectTimeout: .seconds(2), maxResponseBytes: maxBody)
        let outcome = Mutex<Result<HTTPResponse, HTTPError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result = await Result { () async throws(HTTPError) in try await transport.send(request) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        switch outcome.withLock({ $0 }) {
        case .success(let response)?:
            FuzzCheck.expect((100...999).contains(response.status), "status \(response.status) delivered")
            FuzzCheck.expect(!(300..<400).contains(response.status), "a redirect delivered")
            FuzzCheck.expect(response.body.count <= maxBody, "a body of \(response.body.count) bytes over the cap")
            FuzzCheck.expect(response.headers.count <= HTTPResponseHead.maximumFields, "too many headers kept")
        case .failure(let error)?:
            FuzzCheck.boundedDescription(error)
            if case .notSent = error {
                FuzzCheck.expect(false, "a request to a listening server was not sent: \(error)")
            }
        case nil:
            FuzzCheck.expect(false, "no outcome")
        }
    }
}

extension Result where Failure == HTTPError {
    /// The outcome of an async throwing call.
    init(catching body: () async throws(HTTPError) -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
