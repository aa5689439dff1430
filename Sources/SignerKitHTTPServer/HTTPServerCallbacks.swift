import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// libmicrohttpd's callbacks: they run on the connection's own thread (thread-per-connection), which
// waits for nothing but its own request's handler.

/// A connection opened or closed (on libmicrohttpd's listening thread): the watch lists it, tagging its socket
/// context, or unlists it (before libmicrohttpd closes its socket).
let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, socketContext, event in
    guard let cls, let connection, let socketContext else { return }
    let core = Unmanaged<HTTPServerCore>.fromOpaque(cls).takeUnretainedValue()
    if event == .CONNECTION_NOTIFY_STARTED {
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = Int(sk_mhd_connection_address(connection, &bytes))
        let tag = core.watch.opened(
            descriptor: sk_mhd_connection_fd(connection), address: count > 0 ? Array(bytes[..<count]) : nil)
        socketContext.pointee = UnsafeMutableRawPointer(bitPattern: tag)
    } else if event == .CONNECTION_NOTIFY_CLOSED {
        core.watch.closed(UInt(bitPattern: socketContext.pointee))
        socketContext.pointee = nil
    }
}

/// The watch's tag of `connection` (0: none).
private func tag(_ connection: OpaquePointer) -> UInt { UInt(sk_mhd_connection_tag(connection)) }

/// The request line arrived: a context with the raw target.
let uriLogged: sk_mhd_uri_log = { cls, uri, connection in
    guard let cls else { return nil }
    let core = Unmanaged<HTTPServerCore>.fromOpaque(cls).takeUnretainedValue()
    core.requestStarted()
    if let connection { core.watch.lineArrived(tag(connection)) }
    let target = uri.map { String(cString: $0) } ?? "/"
    return Unmanaged.passRetained(HTTPRequestContext(target: target)).toOpaque()
}

/// The request is over (answered, failed or timed out): the connection waits for the next one; releases the
/// request's context.
let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, contextSlot, _ in
    guard let cls else { return }
    let core = Unmanaged<HTTPServerCore>.fromOpaque(cls).takeUnretainedValue()
    if let connection { core.watch.requestEnded(tag(connection)) }
    guard let contextSlot, let raw = contextSlot.pointee else { return }
    contextSlot.pointee = nil
    Unmanaged<HTTPRequestContext>.fromOpaque(raw).release()
    core.requestEnded()
}

/// Called for the head, for each body chunk, and once the body is complete (then it answers).
let accessHandler: MHD_AccessHandlerCallback = {
    cls, connection, _, rawMethod, version, uploadData, uploadSize, contextSlot in
    guard let cls, let connection, let contextSlot, let raw = contextSlot.pointee, let uploadSize else {
        return .NO
    }
    let core = Unmanaged<HTTPServerCore>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<HTTPRequestContext>.fromOpaque(raw).takeUnretainedValue()
    if uploadSize.pointee > 0 {
        let bytes = UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee)
        uploadSize.pointee = 0
        // Past the limit the rest is discarded and the final call answers 413 (libmicrohttpd takes no
        // answer in the middle of an upload).
        _ = context.append(bytes, limit: core.limits.maxBodyBytes)
        return .YES
    }
    let method = rawMethod.map { String(cString: $0) } ?? ""
    if context.headArrived() {
        // The first call: the head only. A refusal here is sent before any body is read, and the connection
        // closes after it (libmicrohttpd discards a body still announced).
        let head = HTTPServerRequest(
            method: method, target: context.target, fields: headerFields(connection), body: [],
            peerUserID: peerUserID(connection, core: core))
        let verdict = headVerdict(head, connection: connection, rawMethod: rawMethod, version: version, core: core)
        if case .refuse(let answer) = verdict {
            core.watch.requestReceived(tag(connection))
            return queue(answer, on: connection, closing: true)
        }
        if case .credentialed = verdict { core.watch.headArrived(tag(connection), credentialed: true) }
        context.keep(head)
        return .YES
    }
    core.watch.requestReceived(tag(connection))
    if context.tooLarge { return queue(.text(413, "body too large"), on: connection) }
    let (body, first) = context.takeForDispatch()
    guard first, let head = context.head else { return .YES }
    let request = HTTPServerRequest(
        method: head.method, target: head.target, fields: head.fields, body: body, peerUserID: head.peerUserID)
    let answer = core.respond(to: request, context: context)
    return answer.dropConnection ? .NO : queue(answer, on: connection)
}

/// What the server makes of a request's head: fields libmicrohttpd cut short (a NUL byte, a folded line) or
/// ambiguous framing are refused with 400 (501 for an unknown transfer coding), a declared body over the limit
/// with 413; then the server's own head check decides.
private func headVerdict(
    _ head: HTTPServerRequest, connection: OpaquePointer, rawMethod: UnsafePointer<CChar>?,
    version: UnsafePointer<CChar>?, core: HTTPServerCore
) -> HTTPServerHeadVerdict {
    guard sk_mhd_head_intact(connection, rawMethod) == 1 else {
        return .refuse(.text(400, "a header field holds a NUL byte or is folded over lines"))
    }
    if let refusal = HTTPFraming.refusal(head.fields, version: version.map { String(cString: $0) } ?? "") {
        return .refuse(refusal)
    }
    if let declared = head.header("content-length").flatMap({ Int($0) }), declared > core.limits.maxBodyBytes {
        return .refuse(.text(413, "body too large"))
    }
    return core.headCheck(head)
}

/// Every header field in order, names in lower case.
private func headerFields(_ connection: OpaquePointer) -> [(name: String, value: String)] {
    var fields = HeaderFields()
    withUnsafeMutablePointer(to: &fields) { pointer in
        _ = MHD_get_connection_values(connection, .HEADER_KIND, collectHeader, pointer)
    }
    return fields.items
}

/// On a Unix-domain socket, the peer's user id.
private func peerUserID(_ connection: OpaquePointer, core: HTTPServerCore) -> UInt32? {
    let descriptor = core.isUnixSocket ? sk_mhd_connection_fd(connection) : -1
    return descriptor >= 0 ? UnixSocket.peerUserID(descriptor) : nil
}

private struct HeaderFields {
    var items: [(name: String, value: String)] = []
}

private let collectHeader: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    let fields = cls.assumingMemoryBound(to: HeaderFields.self)
    fields.pointee.items.append((String(cString: key).lowercased(), value.map { String(cString: $0) } ?? ""))
    return .YES
}

/// Queues `answer`; `closing`: with `Connection: close`, so libmicrohttpd closes the connection after it.
private func queue(_ answer: HTTPServerResponse, on connection: OpaquePointer, closing: Bool = false) -> MHD_Result {
    let response = answer.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let response else { return .NO }
    defer { MHD_destroy_response(response) }
    for (name, value) in answer.headers {
        let lower = name.lowercased()
        guard lower != "content-length", lower != "connection", lower != "transfer-encoding" else { continue }
        guard MHD_add_response_header(response, name, value) == .YES else { return .NO }
    }
    if closing, MHD_add_response_header(response, "Connection", "close") != .YES { return .NO }
    return MHD_queue_response(connection, UInt32(answer.status), response)
}
