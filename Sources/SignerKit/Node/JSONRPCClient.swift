import EthereumPrimitives
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An ``EthereumNode`` reached by JSON-RPC 2.0 over HTTP POST.
///
/// Each request gets the next id from an atomic counter; responses are parsed with the project's
/// strict JSON (numbers stay text). A JSON-RPC error object becomes ``NodeError/rpc(code:message:method:)``
/// with the node's code and message, whatever the HTTP status.
public final class JSONRPCClient: EthereumNode {
    /// The node's endpoint.
    public let url: URL
    /// How long one request may take before it fails with ``NodeError/timeout(method:)``.
    public let timeout: Duration

    private let session: URLSession
    private let ownsSession: Bool
    private let nextID = Atomic<Int>(0)

    /// A client for the node at `url`; each request may take up to `timeout`.
    ///
    /// Pass a `session` to share one; by default the client makes its own ephemeral session.
    public init(url: URL, timeout: Duration = .seconds(30), session: URLSession? = nil) {
        self.url = url
        self.timeout = timeout
        if let session {
            self.session = session
            ownsSession = false
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = Self.seconds(timeout)
            configuration.timeoutIntervalForResource = Self.seconds(timeout)
            self.session = URLSession(configuration: configuration)
            ownsSession = true
        }
    }

    deinit {
        if ownsSession { session.finishTasksAndInvalidate() }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return max(0.001, TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
    }

    /// Sends `method` with `params` and returns the `result` member of the response (possibly `null`).
    public func call(method: String, params: [JSONValue]) async throws(NodeError) -> JSONValue {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let body = JSONValue.object(
            JSONObject([
                "jsonrpc": .string("2.0"),
                "id": .number(String(id)),
                "method": .string(method),
                "params": .array(params),
            ])
        ).serialized
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.timeoutInterval = Self.seconds(timeout)
        request.httpBody = Data(body.utf8)

        let data: Data
        let response: URLResponse
        do {
            // Cancelling `data(for:)` mid-flight can deadlock swift-corelibs-foundation on Linux, so the
            // request runs in an unstructured task that a cancelled caller does not reach; the request
            // timeout still bounds it, and a cancelled caller gets `.cancelled` once it returns.
            let session = self.session
            (data, response) = try await Task { try await session.data(for: request) }.value
        } catch let error as URLError {
            switch error.code {
            case .timedOut: throw .timeout(method: method)
            case .cancelled: throw .cancelled(method: method)
            default:
                throw .transport(
                    "\(method) to \(url.absoluteString): \(error.localizedDescription) (URLError \(error.code.rawValue))"
                )
            }
        } catch is CancellationError {
            throw .cancelled(method: method)
        } catch {
            throw .transport("\(method) to \(url.absoluteString): \(error.localizedDescription)")
        }
        if Task.isCancelled { throw .cancelled(method: method) }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 200
        return try Self.result(of: [UInt8](data), status: status, id: id, method: method)
    }

    /// Reads a JSON-RPC response body: the error object, the result, or why neither makes sense.
    static func result(of body: [UInt8], status: Int, id: Int, method: String) throws(NodeError) -> JSONValue {
        let reader = NodeResponseReader(method: method)
        let parsed: JSONValue
        do {
            parsed = try JSONValue(parsing: body)
        } catch {
            if !(200..<300).contains(status) { throw .http(status: status, method: method) }
            throw reader.fail("not JSON (\(error))")
        }
        guard case .object(let object) = parsed else {
            if !(200..<300).contains(status) { throw .http(status: status, method: method) }
            throw reader.fail("the body is a \(parsed.kindName), not a JSON-RPC response object")
        }
        if let error = object["error"], error != .null {
            guard case .object(let errorObject) = error else {
                throw reader.fail("error is a \(error.kindName), not an object")
            }
            guard case .number(let codeText)? = errorObject["code"], let code = Int(codeText) else {
                throw reader.fail("error.code is not an integer")
            }
            let message = errorObject["message"]?.stringValue ?? ""
            throw .rpc(code: code, message: message, method: method)
        }
        if !(200..<300).contains(status) { throw .http(status: status, method: method) }
        let echoed: String? =
            switch object["id"] {
            case .number(let text)?: text
            case .string(let text)?: text
            default: nil
            }
        guard echoed == String(id) else {
            throw reader.fail("id \(object["id"]?.serialized ?? "missing") does not match the request's \(id)")
        }
        guard let result = object["result"] else { throw reader.fail("neither result nor error") }
        return result
    }
}
