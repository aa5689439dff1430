import RedirectSigner
import SignerKitHTTPServer

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
