import EthereumPrimitives
import Foundation
import RedirectSigner
import RedirectSignerTesting
import RedirectSignerTransports
import SignerKit
import SignerKitCurl
import SignerKitTestSupport
import SoftwareSigner
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An address literal known to be valid.
func address(_ text: String) -> Address {
    do { return try Address(text) } catch { fatalError("test address: \(error)") }
}

/// What a browser-like fetch ended on.
struct FetchResult: Sendable {
    let status: Int
    let body: String
    let finalURL: String
}

/// How long a test's own socket exchange (a browser's fetch, a raw request) may take: a bound that only ends a
/// hang, read on ``RealTime/Progress``. What it waits for (SignerKit's verdict on a callback) runs on Swift's
/// cooperative pool, which the whole suite keeps busy when its tests start at once: the verdict is then late
/// by as much as the pool is, and so is the bound.
let exchangeDeadline = Duration.seconds(30)

/// HTTP as a browser does it, over the project's libcurl transport: redirects followed (up to five; a
/// 302 or 303 after a POST becomes a GET), no caching or cookies, no deadline of its own
/// (``exchangeDeadline``).
enum HTTPClient {
    static func get(_ url: String) async throws -> FetchResult {
        try await fetch(method: "GET", url, body: nil, headers: [])
    }

    static func post(_ url: String, form: String) async throws -> FetchResult {
        try await fetch(
            method: "POST", url, body: Array(form.utf8),
            headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")])
    }

    private static func fetch(method: String, _ url: String, body: [UInt8]?, headers: [HTTPHeader]) async throws
        -> FetchResult
    {
        var method = method
        var body = body
        var headers = headers
        var current = url
        for _ in 0...5 {
            guard let target = URL(string: current) else { throw TestFailure("not a URL: \(current)") }
            var request = HTTPRequest(
                method: method, url: target, headers: headers, body: body, timeout: exchangeDeadline)
            request.deliversRedirects = true
            let response = try await RealTime.send(request, within: exchangeDeadline)
            guard (300..<400).contains(response.status), let location = response.header("Location") else {
                return FetchResult(
                    status: response.status, body: String(decoding: response.body, as: UTF8.self), finalURL: current)
            }
            current = URL(string: location, relativeTo: target)?.absoluteString ?? location
            if method == "POST" && response.status != 307 && response.status != 308 {
                method = "GET"
                body = nil
                headers = []
            }
        }
        throw TestFailure("more than five redirects from \(url)")
    }
}

/// An error thrown by test helpers.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// An opener that behaves like a browser following redirects and remembers every page it ended on. The
/// session opens beside its wait, so the fetch runs to its end right there; a fetch that fails fails the
/// request with its reason (and is remembered as a page with status -1), instead of leaving it waiting.
final class FetchingOpener: Sendable {
    private let pages = Arrivals<FetchResult>()

    var opener: URLOpener {
        URLOpener { (url) throws(WaypointError) in
            do {
                self.pages.append(try await HTTPClient.get(url))
            } catch {
                self.pages.append(FetchResult(status: -1, body: "fetch failed: \(error)", finalURL: url))
                throw .transport("the browser's fetch of \(url) failed: \(error)")
            }
        }
    }

    /// The pages, once at least `count` fetches have ended.
    func waitForPages(_ count: Int) async throws -> [FetchResult] { try await pages.atLeast(count) }
}

/// A simulator plus a loopback session pointed at it, on a clock nobody advances: a request ends with
/// its callback (or a transport error), never because the machine was slow.
struct SimulatedWallet {
    let simulator: HostedWalletSimulator
    let session: WaypointSession
    let browser: FetchingOpener

    static let clientId = "test-client"

    static func make(_ configuration: HostedWalletSimulator.Configuration, verifying: Bool = false) throws
        -> SimulatedWallet
    {
        let simulator = try HostedWalletSimulator(configuration: configuration)
        let browser = FetchingOpener()
        let clock = ManualClock()
        let transport = try LoopbackTransport(opener: browser.opener, clock: clock)
        let session = WaypointSession(
            origin: simulator.origin, clientId: clientId, transport: transport, clock: clock,
            idTokenVerifier: verifying ? verifier(for: simulator) : nil)
        return SimulatedWallet(simulator: simulator, session: session, browser: browser)
    }

    func close() async {
        await session.close()
        await simulator.stop()
    }

    /// A verifier of the simulator's tokens: its origin as issuer, the test client, its JWKS URL.
    static func verifier(for simulator: HostedWalletSimulator, clientId: String = clientId) -> IDTokenVerifier {
        IDTokenVerifier(
            issuer: simulator.origin, clientID: clientId,
            keys: JWKSProvider(location: simulator.origin + "/.well-known/jwks.json"))
    }
}

/// Typed data used across tests (Ronin chain 2020).
enum Fixtures {
    static let typedDataJSON = """
        {"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"version","type":"string"},\
        {"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],\
        "Order":[{"name":"maker","type":"address"},{"name":"amount","type":"uint256"},{"name":"note","type":"string"}]},\
        "primaryType":"Order","domain":{"name":"Test Market","version":"1","chainId":2020,\
        "verifyingContract":"0xfff9976782d46cc05630d1f6ebab18b2324d6b14"},\
        "message":{"maker":"0x2c7536e3605d9c16a7a3d7b1898e529396a65c23","amount":"1000","note":"a+b & c=d #1"}}
        """
}

/// Runs blocking work on a thread of its own (never on the concurrency pool).
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }
    }
}

/// A raw HTTP exchange over a socket, for what URLSession will not send (another Host, no redirect
/// following).
enum RawHTTP {
    struct Response: Sendable {
        let status: Int
        let headers: [String: String]
        let body: String
    }

    static func send(port: UInt16, _ request: String) async throws -> Response {
        try await onThread {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw TestFailure("socket failed") }
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else { throw TestFailure("connect failed") }
            // A real wait on the socket until the server closes it, bounded by exchangeDeadline (each read
            // waits at most a tenth of a second, then the bound is looked at).
            var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let bytes = Array(request.utf8)
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            let bound = RealTime.Bound(exchangeDeadline)
            var data: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                    guard !bound.hasPassed else { throw TestFailure("no complete answer within the exchange bound") }
                    continue
                }
                if count <= 0 { break }
                data += chunk[0..<count]
            }
            let text = String(decoding: data, as: UTF8.self)
            guard let split = text.range(of: "\r\n\r\n") else { throw TestFailure("no response head: \(text)") }
            var lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst().split(separator: " ")
            guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw TestFailure("bad status line") }
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                    in: .whitespaces)
            }
            return Response(status: status, headers: headers, body: String(text[split.upperBound...]))
        }
    }

    static func get(port: UInt16, _ target: String, host: String? = nil) async throws -> Response {
        try await send(
            port: port, "GET \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n\r\n")
    }
}

/// An opener that only records URLs, and lets a test await them.
final class RecordingOpener: Sendable {
    private let urls = Arrivals<String>()

    var opener: URLOpener {
        URLOpener { url in self.urls.append(url) }
    }

    /// The `index`-th opened URL, once it was opened.
    func url(_ index: Int = 0) async throws -> String { try await urls.element(index) }
}

/// A query parameter of a URL.
func queryParameter(_ name: String, in url: String) -> String? {
    guard let question = url.firstIndex(of: "?") else { return nil }
    for segment in url[url.index(after: question)...].split(separator: "&") {
        let parts = segment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2, QueryEncoding.formDecode(parts[0]) == name { return QueryEncoding.formDecode(parts[1]) }
    }
    return nil
}

/// The callback a wallet would send for `requestURL`, signed with `key` over `message`.
func signedCallback(for requestURL: String, signature: String, method: String = "sign") -> String {
    let redirect = queryParameter("redirect", in: requestURL) ?? ""
    let state = queryParameter("state", in: requestURL) ?? ""
    return
        "\(redirect)?state=\(QueryEncoding.formEncode(state))&method=\(method)&version=1&type=success&data=\(signature)"
}
