import SignerKitCurl
import SignerKitHTTP

extension RealTime {
    /// libcurl's own deadline for ``send(_:within:)``: never the one that ends an exchange (the bound on
    /// ``Progress`` does, and cancels the transfer), only what libcurl needs to be given.
    static let curlBackstop = Duration.seconds(24 * 60 * 60)

    /// An exchange whose answer needs Swift's cooperative pool (SignerKit's verdict on a callback, an
    /// in-process command's reply), bounded by `limit` on ``Progress``: while the pool is busy the answer is
    /// late by as much, and so is the bound; a wall-clock deadline would fail a correct exchange then.
    ///
    /// - Throws: the transport's error, or ``HTTPError/timeout(requestSent:)`` once the bound has passed.
    public static func send(_ request: HTTPRequest, within limit: Duration) async throws(HTTPError) -> HTTPResponse {
        var request = request
        request.deadline = ContinuousClock.now.advanced(by: curlBackstop)
        let exchange = Task { [request] () async -> Result<HTTPResponse, HTTPError> in
            do throws(HTTPError) { return .success(try await CurlHTTPTransport.shared.send(request)) } catch {
                return .failure(error)
            }
        }
        guard let outcome = await value(of: exchange, within: limit) else {
            exchange.cancel()
            throw .timeout(requestSent: true)
        }
        return try outcome.get()
    }
}

/// An ``HTTPTransport`` whose every exchange is bounded like ``RealTime/send(_:within:)`` (on
/// ``RealTime/Progress``, not the wall clock): for code under test that takes a transport and would otherwise
/// bound an exchange whose answer needs the cooperative pool by a wall-clock timeout.
public struct ProgressBoundedTransport: HTTPTransport {
    /// The bound of each exchange.
    public let limit: Duration

    /// Exchanges bounded by `limit` of progress.
    public init(within limit: Duration) { self.limit = limit }

    /// ``RealTime/send(_:within:)``.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        try await RealTime.send(request, within: limit)
    }
}
