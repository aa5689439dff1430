/// What a server decides about a request once its head (request line and header fields) has arrived, before
/// any of its body is read.
package enum HTTPServerHeadVerdict: Sendable {
    /// Read the body and dispatch the request; the head showed credentials, so the server never closes this
    /// connection to make room for another.
    case credentialed
    /// Read the body and dispatch the request; while the server is nearly full this connection may be closed
    /// to make room for a newcomer once it waits for a request again.
    case anonymous
    /// Answer at once: the body is not read and the connection closes after the answer.
    case refuse(HTTPServerResponse)
}

extension HTTPServer {
    /// Looks at a request's head: the request carries the method, target and header fields, and no body yet.
    /// Runs on the connection's thread before the body is read, so it must not wait for anything.
    package typealias HeadCheck = @Sendable (HTTPServerRequest) -> HTTPServerHeadVerdict
}
