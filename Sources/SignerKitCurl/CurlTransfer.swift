import CCurl
import EthereumPrimitives
import Foundation
import SignerKitSupport
import Synchronization

/// One request on one libcurl easy handle: its options, the answer as it arrives, and the continuation
/// that is resumed exactly once (by ``CurlEngine``'s thread, or at once when it never starts).
final class CurlTransfer: @unchecked Sendable {
    /// The easy handle (owned; cleaned up in ``release()``).
    let easy: UnsafeMutableRawPointer
    /// The request (for the deadline and the redirect host).
    let request: HTTPRequest
    /// Set by a cancellation that may come before the engine has started the transfer.
    let cancelRequested = Atomic<Bool>(false)

    // Touched only by libcurl's callbacks and the engine thread while the transfer runs.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private(set) var body: [UInt8] = []
    private(set) var head = HTTPResponseHead()
    private(set) var bodyTooLarge = false

    private let continuation = Mutex<CheckedContinuation<HTTPResponse, any Error>?>(nil)
    private let finished = Atomic<Bool>(false)

    /// A configured handle for `request`, or why it cannot be sent.
    init(request: HTTPRequest) throws(HTTPError) {
        CurlGlobal.initialize()
        guard let easy = curl_easy_init() else { throw .notSent("libcurl could not create a handle") }
        self.easy = easy
        self.request = request
        let size = sk_curl_error_size()
        errorBuffer = .allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)
        do { try configure() } catch {
            release()
            throw error
        }
    }

    deinit { release() }

    private var released = false

    /// Frees the handle, the header list and the error buffer (idempotent; the engine calls it once done).
    func release() {
        guard !released else { return }
        released = true
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        headerList = nil
        errorBuffer.deallocate()
    }

    // MARK: - options

    private func configure() throws(HTTPError) {
        let url = request.url
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .notSent("only http and https URLs are sent")
        }
        guard let host = url.host, !host.isEmpty else { throw .notSent("the URL has no host") }
        guard url.user == nil, url.password == nil else { throw .notSent("credentials in the URL are refused") }
        let method = request.method.uppercased()
        guard !method.isEmpty, method.utf8.allSatisfy({ (0x41...0x5A).contains($0) || $0 == 0x2D }) else {
            throw .notSent("method \(EchoedText.abbreviated(request.method).debugDescription) is not a token")
        }
        try set(CURLOPT_URL, url.absoluteString)
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        // A fresh connection per request: libcurl re-sends a request on its own when a reused
        // connection turns out dead, which must never happen to a non-idempotent request.
        try set(CURLOPT_FORBID_REUSE, 1)
        try set(CURLOPT_FRESH_CONNECT, 1)
        // No proxy from the environment (credentials go only to the configured origin).
        try set(CURLOPT_PROXY, "")
        if let path = request.unixSocketPath {
            guard path.hasPrefix("/"), !path.utf8.contains(0) else {
                throw .notSent("the socket path must be absolute")
            }
            try set(CURLOPT_UNIX_SOCKET_PATH, path)
        }
        if let signature = request.awsSignature {
            // libcurl computes SigV4 over the method, path, query, every header set here and the body; the
            // strings are copied by libcurl (and freed with the handle).
            try set(CURLOPT_AWS_SIGV4, signature.curlProvider)
            try set(CURLOPT_USERNAME, signature.accessKeyID)
            try set(CURLOPT_PASSWORD, signature.secretAccessKey)
        }
        try check(sk_curl_setopt_offset(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxResponseBytes)))
        try check(sk_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        try check(sk_curl_use_cloexec_sockets(easy))

        switch method {
        case "GET" where request.body == nil: try set(CURLOPT_HTTPGET, 1)
        case "HEAD": try set(CURLOPT_NOBODY, 1)
        case "POST": break
        default: try set(CURLOPT_CUSTOMREQUEST, method)
        }
        if let body = request.body ?? (method == "POST" ? [] : nil) {
            try set(CURLOPT_POST, 1)
            try check(sk_curl_setopt_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            // libcurl copies the bytes during the call; an empty body is copied from "" (never a null pointer).
            let code = body.withUnsafeBytes { raw -> CURLcode in
                guard let base = raw.baseAddress, !raw.isEmpty else {
                    return sk_curl_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, "")
                }
                return sk_curl_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base))
            }
            try check(code)
            if method != "POST" { try set(CURLOPT_CUSTOMREQUEST, method) }
        }

        // "Expect:" turns off libcurl's 100-continue wait; "Accept:" is the caller's to set. Not for a SigV4
        // request: libcurl (7.88) lists every header of this list in SignedHeaders, the removed `expect` too,
        // which no server can verify (AWS and botocore never sign `expect`); its bodies are small anyway.
        var list: UnsafeMutablePointer<curl_slist>? =
            request.awsSignature == nil ? curl_slist_append(nil, "Expect:") : nil
        for header in request.headers {
            let forbidden: (UInt8) -> Bool = { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
            guard !header.name.isEmpty,
                !header.name.utf8.contains(where: { forbidden($0) || $0 == 0x3A || $0 == 0x20 }),
                !header.value.utf8.contains(where: forbidden)
            else {
                curl_slist_free_all(list)
                throw .notSent("header \(EchoedText.abbreviated(header.name).debugDescription) is malformed")
            }
            // "Name;" sends an empty value; "Name:" would remove the header instead.
            let line = header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"
            guard let appended = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw .notSent("out of memory for the headers")
            }
            list = appended
        }
        headerList = list
        try check(sk_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, list))

        let me = Unmanaged.passUnretained(self).toOpaque()
        try check(sk_curl_setopt_write(easy, CURLOPT_WRITEFUNCTION, curlWrite))
        try check(sk_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, me))
        try check(sk_curl_setopt_write(easy, CURLOPT_HEADERFUNCTION, curlHeader))
        try check(sk_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, me))
    }

    /// Sets the time limits from what is left before the deadline; `false` when nothing is left.
    func applyDeadline(now: ContinuousClock.Instant) throws(HTTPError) -> Bool {
        let left = now.duration(to: request.deadline)
        guard left > .zero else { return false }
        let total = Self.milliseconds(left)
        let connect = min(total, Self.milliseconds(max(request.connectTimeout, .milliseconds(1))))
        try set(CURLOPT_TIMEOUT_MS, total)
        try set(CURLOPT_CONNECTTIMEOUT_MS, connect)
        return true
    }

    /// Whole milliseconds, rounded up, at least 1, at most `Int.max / 2` (no overflow).
    static func milliseconds(_ duration: Duration) -> Int {
        max(1, Int(min(duration.millisecondsRoundedUp, Int64(Int.max / 2))))
    }

    private func set(_ option: CURLoption, _ value: Int) throws(HTTPError) {
        try check(sk_curl_setopt_long(easy, option, value))
    }

    private func set(_ option: CURLoption, _ value: String) throws(HTTPError) {
        try check(sk_curl_setopt_string(easy, option, value))
    }

    private func check(_ code: CURLcode) throws(HTTPError) {
        guard code == CURLE_OK else { throw .notSent("libcurl refused an option: \(Self.text(code))") }
    }

    static func text(_ code: CURLcode) -> String {
        guard let message = curl_easy_strerror(code) else { return "curl error \(code.rawValue)" }
        return String(cString: message)
    }

    // MARK: - callbacks (engine thread)

    fileprivate func received(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= request.maxResponseBytes else {
            bodyTooLarge = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    fileprivate func receivedHeader(_ bytes: UnsafeRawBufferPointer) {
        head.add(line: bytes)
    }

    // MARK: - outcome

    /// Whether any of the request had been handed to the connection.
    var requestSent: Bool {
        var size = 0
        _ = sk_curl_getinfo_long(easy, CURLINFO_REQUEST_SIZE, &size)
        var uploaded: curl_off_t = 0
        _ = sk_curl_getinfo_offset(easy, CURLINFO_SIZE_UPLOAD_T, &uploaded)
        return size > 0 || uploaded > 0
    }

    /// What libcurl's result `code` means for the caller.
    func outcome(_ code: CURLcode) -> Result<HTTPResponse, HTTPError> {
        let sent = requestSent
        if bodyTooLarge || code == CURLE_FILESIZE_EXCEEDED {
            return .failure(.bodyTooLarge(limit: request.maxResponseBytes))
        }
        guard code == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            let reason = detail.isEmpty ? Self.text(code) : "\(Self.text(code)): \(EchoedText.abbreviated(detail))"
            // Whatever libcurl's code, a request that went out may have been acted on: "not sent" only when
            // nothing was handed to the connection (a garbled answer, e.g. an unsupported HTTP version, is
            // CURLE_UNSUPPORTED_PROTOCOL after the request was sent — fuzz finding, http-response).
            if code == CURLE_OPERATION_TIMEDOUT { return .failure(.timeout(requestSent: sent)) }
            return .failure(sent ? .outcomeUnknown(reason) : .notSent(reason))
        }
        var status = 0
        _ = sk_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        guard status >= 100 else { return .failure(.outcomeUnknown("no HTTP status line")) }
        if (300..<400).contains(status) && !request.deliversRedirects {
            return .failure(.redirectRefused(status: status, locationHost: head.redirectHost(relativeTo: request.url)))
        }
        return .success(HTTPResponse(status: status, headers: head.fields, body: body))
    }

    // MARK: - continuation

    /// Remembers the continuation to resume.
    func attach(_ continuation: CheckedContinuation<HTTPResponse, any Error>) {
        self.continuation.withLock { $0 = continuation }
    }

    /// Resumes the caller once; later calls do nothing.
    func finish(_ result: Result<HTTPResponse, HTTPError>) {
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let continuation = self.continuation.withLock { current in
            defer { current = nil }
            return current
        }
        switch result {
        case .success(let response): continuation?.resume(returning: response)
        case .failure(let error): continuation?.resume(throwing: error)
        }
    }
}

/// libcurl's write callback: appends body bytes; returning less than given aborts (body too large).
private let curlWrite: curl_write_callback = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard length > 0, let data else { return length }
    return transfer.received(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

/// libcurl's header callback: one header line per call.
private let curlHeader: curl_write_callback = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard length > 0, let data else { return length }
    transfer.receivedHeader(UnsafeRawBufferPointer(start: data, count: length))
    return length
}

/// `curl_global_init`, once per process, before the first handle.
enum CurlGlobal {
    private static let initialized: Bool = sk_curl_global_init() == CURLE_OK

    /// Runs the one initialisation (Swift's lazy statics are thread-safe).
    static func initialize() { _ = initialized }
}
