import Foundation
import SignerKitHTTPServer
import WalletConnectPay

/// Why the loopback server could not start.
public struct LoopbackServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The failing call and its `errno` text.
    public let description: String
}

/// One HTTP/1.1 request as the loopback server read it.
public struct LoopbackHTTPRequest: Sendable {
    /// `GET`, `POST`, …
    public var method: String
    /// The path, still percent-encoded, without the query.
    public var path: String
    /// The query parameters in order, percent-decoded.
    public var query: [(name: String, value: String)]
    /// Header fields with lower-cased names, in order.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// The first header called `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name == lower }?.value
    }

    /// The first query parameter called `name`.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }
}

/// An HTTP answer, or an instruction to drop the connection without one.
public struct LoopbackHTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Extra header fields (`Content-Length` and `Connection` are added).
    public var headers: [(String, String)]
    /// The body.
    public var body: [UInt8]
    /// Close the connection without answering (a transport error for the client).
    public var dropConnection: Bool

    /// An answer.
    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], dropConnection: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.dropConnection = dropConnection
    }

    /// A JSON answer.
    public static func json(_ status: Int, _ text: String, headers: [(String, String)] = []) -> LoopbackHTTPResponse {
        LoopbackHTTPResponse(
            status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(text.utf8))
    }
}

extension LoopbackHTTPRequest {
    /// The request as the server layer received it: path before `?`, query pairs percent-decoded.
    init(_ request: HTTPServerRequest) {
        self.init(
            method: request.method, path: String(request.path), query: PaymentLink.parameters(request.query),
            headers: request.fields, body: request.body)
    }

}

extension HTTPServerResponse {
    /// The server layer's answer for `response`.
    init(_ response: LoopbackHTTPResponse) {
        self.init(
            status: response.status, headers: response.headers, body: response.body,
            dropConnection: response.dropConnection)
    }
}

extension HTTPServer {
    /// The local service's server: 127.0.0.1:`port` (0 picks a free port), failures as ``LoopbackServerError``.
    static func localService(
        port: UInt16, handler: @escaping @Sendable (LoopbackHTTPRequest) async -> LoopbackHTTPResponse
    ) throws(LoopbackServerError) -> HTTPServer {
        do {
            return try HTTPServer(host: "127.0.0.1", port: port) { request in
                HTTPServerResponse(await handler(LoopbackHTTPRequest(request)))
            }
        } catch {
            throw LoopbackServerError(description: error.description)
        }
    }
}
