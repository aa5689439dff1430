import EthereumPrimitives
import Foundation
import SignerKitCurl
import Synchronization

/// What the fault server does with a request that matches a ``FaultRule``.
public enum FaultAction: String, Sendable {
    /// Read the request, then reset the connection without forwarding it.
    case reset
    /// Forward the request upstream, then reset the connection without answering.
    case dropAfterForward = "drop_after_forward"
    /// Hold the connection open without answering (forwarded first with ``FaultRule/forward``).
    case hang
    /// Answer ``FaultRule/status``, ``FaultRule/headers`` and ``FaultRule/body`` (forwarded first with ``FaultRule/forward``).
    case respond
    /// Forward, then send the upstream answer's headers and only half of its body.
    case truncate
    /// Answer a redirect (``FaultRule/status``, 302 by default) to ``FaultRule/location``.
    case redirect
    /// Write ``FaultRule/body`` to the socket as the whole answer (status line and headers included), then close.
    case raw
}

/// One fault: which requests it applies to, what happens, and how many times (1 by default; -1 = always).
public struct FaultRule: Sendable {
    /// What happens.
    public var action: FaultAction
    /// Only requests with this HTTP method.
    public var method: String?
    /// Only requests whose path (without the query) ends with this.
    public var pathSuffix: String?
    /// Only requests whose path (with the query) contains this.
    public var pathContains: String?
    /// Only JSON-RPC requests for this method.
    public var rpcMethod: String?
    /// The status for ``FaultAction/respond`` and ``FaultAction/redirect``.
    public var status: Int?
    /// The body for ``FaultAction/respond``.
    public var body: String?
    /// Headers for ``FaultAction/respond``.
    public var headers: [String: String]
    /// The `Location` for ``FaultAction/redirect``.
    public var location: String?
    /// Forward the request upstream before ``FaultAction/respond`` or ``FaultAction/hang``.
    public var forward: Bool
    /// How many matching requests it applies to (-1: all).
    public var times: Int

    /// A rule.
    public init(
        _ action: FaultAction, method: String? = nil, pathSuffix: String? = nil, pathContains: String? = nil,
        rpcMethod: String? = nil, status: Int? = nil, body: String? = nil, headers: [String: String] = [:],
        location: String? = nil, forward: Bool = false, times: Int = 1
    ) {
        self.action = action
        self.method = method
        self.pathSuffix = pathSuffix
        self.pathContains = pathContains
        self.rpcMethod = rpcMethod
        self.status = status
        self.body = body
        self.headers = headers
        self.location = location
        self.forward = forward
        self.times = times
    }

    var json: JSONValue {
        var object = JSONObject(["action": .string(action.rawValue), "times": .number(String(times))])
        if let method { object["method"] = .string(method) }
        if let pathSuffix { object["pathSuffix"] = .string(pathSuffix) }
        if let pathContains { object["pathContains"] = .string(pathContains) }
        if let rpcMethod { object["rpcMethod"] = .string(rpcMethod) }
        if let status { object["status"] = .number(String(status)) }
        if let body { object["body"] = .string(body) }
        if !headers.isEmpty {
            var fields = JSONObject()
            for (name, value) in headers { fields[name] = .string(value) }
            object["headers"] = .object(fields)
        }
        if let location { object["location"] = .string(location) }
        if forward { object["forward"] = .bool(true) }
        return .object(object)
    }
}

/// A request the fault server saw.
public struct SeenRequest: Sendable {
    /// `GET`, `POST`, …
    public var method: String
    /// The path with its query.
    public var path: String
    /// Header fields, names lower-cased, in order.
    public var headers: [(name: String, value: String)]
    /// The body as text.
    public var body: String
    /// The JSON-RPC method of the body, if it is one.
    public var rpcMethod: String?
    /// The rule's action that applied, if any.
    public var action: String?

    /// The value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name == wanted }?.value
    }

    /// Whether it carried credentials (`Api-Key`, `App-Id`, `Client-Id`, `Authorization`, `Cookie`).
    public var hasCredentials: Bool {
        ["api-key", "app-id", "client-id", "authorization", "cookie"].contains { header($0) != nil }
    }

    /// The path without the query.
    public var pathOnly: Substring { path.prefix { $0 != "?" } }
}

/// `scripts/fault-server/server.py` (Python standard library) on 127.0.0.1, started as a child process:
/// a proxy in front of `upstream` (the local EVM node, a local Pay service) or a stand-in without one,
/// with per-route and per-JSON-RPC-method faults (``FaultRule``) and a record of every request.
/// It exits by itself when the test process dies.
public final class FaultServer: Sendable {
    /// Where clients connect.
    public let url: URL
    /// The port.
    public let port: Int
    private let process: Mutex<Process?>
    private let logURL: URL

    private init(url: URL, port: Int, process: Process, logURL: URL) {
        self.url = url
        self.port = port
        self.process = Mutex(process)
        self.logURL = logURL
    }

    deinit { stop() }

    /// Starts a server forwarding to `upstream` (or answering 404 where no rule applies, without one).
    public static func start(upstream: URL? = nil) async throws -> FaultServer {
        var arguments = [
            LocalEVM.repoRoot.appendingPathComponent("scripts/fault-server/server.py").path,
            "--parent-pid", String(ProcessInfo.processInfo.processIdentifier),
        ]
        if let upstream { arguments += ["--upstream", upstream.absoluteString] }
        let logURL = LocalEVM.makeLog("signerkit-fault")
        let log = try FileHandle(forWritingTo: logURL)
        defer { try? log.close() }
        let stdout = ChildProcess.makePipe()
        let process = try LocalEVM.launch(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3"] + arguments, stdout: stdout, stderr: log)
        let line = await LocalEVM.readLine(from: stdout.fileHandleForReading, within: .seconds(30))
        guard let line, line.hasPrefix("LISTENING "), let port = Int(line.dropFirst("LISTENING ".count)), port > 0,
            let url = URL(string: "http://127.0.0.1:\(port)")
        else {
            await ChildProcess.onThread { ChildProcess.terminate(process) }
            let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            throw LocalEVMError(description: "the fault server did not start: \(text.suffix(2000))")
        }
        return FaultServer(url: url, port: port, process: process, logURL: logURL)
    }

    /// Adds rules (after those already there; the first matching rule with uses left applies).
    public func add(_ rules: FaultRule...) async throws {
        let body = JSONValue.object(JSONObject(["rules": .array(rules.map(\.json))])).serialized
        _ = try await control("POST", "rules", body: body)
    }

    /// Removes every rule and forgets the requests seen.
    public func clear() async throws { _ = try await control("POST", "clear", body: "{}") }

    /// Every request seen so far (control requests excluded), in order.
    public func requests() async throws -> [SeenRequest] {
        let json = try await control("GET", "requests", body: nil)
        guard let list = json["requests"]?.arrayValue else {
            throw LocalEVMError(description: "fault server: no request list in \(json.serialized.prefix(200))")
        }
        return list.map { item in
            let headers = (item["headers"]?.arrayValue ?? []).compactMap { pair -> (name: String, value: String)? in
                guard let parts = pair.arrayValue, parts.count == 2, let name = parts[0].stringValue,
                    let value = parts[1].stringValue
                else { return nil }
                return (name, value)
            }
            return SeenRequest(
                method: item["method"]?.stringValue ?? "", path: item["path"]?.stringValue ?? "", headers: headers,
                body: item["body"]?.stringValue ?? "", rpcMethod: item["rpcMethod"]?.stringValue,
                action: item["action"]?.stringValue)
        }
    }

    /// Stops the server (idempotent).
    public func stop() {
        ChildProcess.stopOnce(process, removing: logURL)
    }

    private func control(_ method: String, _ name: String, body: String?) async throws -> JSONValue {
        guard let target = URL(string: "/__control/\(name)", relativeTo: url)?.absoluteURL else {
            throw LocalEVMError(description: "fault server: bad control URL")
        }
        let response = try await CurlHTTPTransport.shared.send(
            HTTPRequest(
                method: method, url: target, headers: [HTTPHeader("Content-Type", "application/json")],
                body: body.map { Array($0.utf8) }, timeout: .seconds(20)))
        guard response.status == 200 else {
            throw LocalEVMError(description: "fault server: control \(name) answered \(response.status)")
        }
        return try JSONValue(parsing: response.body)
    }
}
