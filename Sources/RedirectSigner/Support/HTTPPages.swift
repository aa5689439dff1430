import SignerKitHTTPServer

/// The request and answer types of the one server layer (``HTTPServer``), under this module's short names.
typealias HTTPRequest = HTTPServerRequest
/// An answer (see ``HTTPServerResponse``).
typealias HTTPResponse = HTTPServerResponse

/// Starts the one server layer on 127.0.0.1:`port` (0: ephemeral), failures as ``WaypointError/transport(_:)``.
package func startLoopbackServer(port: UInt16, handler: @escaping HTTPServer.Handler) throws(WaypointError)
    -> HTTPServer
{
    do {
        return try HTTPServer(host: "127.0.0.1", port: port, handler: handler)
    } catch {
        throw .transport(error.description)
    }
}
