/// The `HTTPTransport` on libcurl: one attempt per call, fresh connection each time, redirects never
/// followed, no proxy from the environment, sockets close-on-exec, body capped, the deadline enforced
/// by libcurl on the whole exchange, and Task cancellation stopping the request in flight.
///
/// Transfers run on one thread of SignerKit's own (libcurl's multi interface), never on Swift's
/// cooperative pool. libcurl is initialised once per process, on first use.
public struct CurlHTTPTransport: HTTPTransport {
    /// A transport (all instances share the one libcurl engine).
    public init() {}

    /// The shared instance.
    public static let shared = CurlHTTPTransport()

    /// Sends `request` once; see `HTTPTransport/send(_:)`.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        if Task.isCancelled { throw .cancelled(requestSent: false) }
        let transfer = try CurlTransfer(request: request)
        let engine = CurlEngine.shared
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    transfer.attach(continuation)
                    engine.submit(transfer)
                }
            } onCancel: {
                engine.cancel(transfer)
            }
        } catch let error as HTTPError {
            throw error
        } catch {
            throw .outcomeUnknown("\(error)")
        }
    }
}
