import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// libmicrohttpd's callbacks: they run on the connection's own thread (thread-per-connection), which
// waits for nothing but its own request's handler.

/// The request line arrived: a context with the raw target.
let uriLogged: sk_mhd_uri_log = { cls, uri, _ in
    guard let cls else { return nil }
    let core = Unmanaged<HTTPServerCore>.fromOpaque(cls).takeUnretainedValue()
    core.requestStarted()
    let target = uri.map { String(cString: $0) } ?? "/"
    return Unmanaged.passRetained(HTTPRequestContext(target: target)).toOpaque()
}

/// The request is over (answered, failed or timed out): releases its context.
let requestCompleted: MHD_RequestCompletedCallback = { cls, _, contextSlot, _ in
    guard let cls, let contextSlot, let raw = contextSlot.pointee else { return }
    contextSlot.pointee = nil
    Unmanaged<HTTPRequestContext>.fromOpaque(raw).release()
    Unmanaged<HTTPServerCore>.fromOpaque(cls).takeUnretainedValue().requestEnded()
}

/// Called for the head, for each body chunk, and once the body is complete (then it answers).
let accessHandler: MHD_AccessHandlerCallback = {
    cls, connection, _, method, _, uploadData, uploadSize, contextSlot in
    guard let cls, let connection, let contextSlot, let raw = contextSlot.pointee, let uploadSize else {
        return .NO
    }
    let core = Unmanaged<HTTPServerCore>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<HTTPRequestContext>.fromOpaque(raw).takeUnretainedValue()
    let limit = core.limits.maxBodyBytes
    if uploadSize.pointee > 0 {
        let bytes = UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee)
        uploadSize.pointee = 0
        // Past the limit the rest is discarded and the final call answers 413 (libmicrohttpd takes no
        // answer in the middle of an upload).
        _ = context.append(bytes, limit: limit)
        return .YES
    }
    if context.headArrived() {
        // The first call: the head only. A declared body over the limit is refused before it is read
        // (libmicrohttpd closes the connection after that answer).
        if let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
            let declared = Int(String(cString: length)), declared > limit
        {
            return queue(.text(413, "body too large"), on: connection)
        }
        return .YES
    }
    if context.tooLarge { return queue(.text(413, "body too large"), on: connection) }
    let (body, first) = context.takeForDispatch()
    guard first else { return .YES }
    var fields = HeaderFields()
    withUnsafeMutablePointer(to: &fields) { pointer in
        _ = MHD_get_connection_values(connection, .HEADER_KIND, collectHeader, pointer)
    }
    let descriptor = core.isUnixSocket ? sk_mhd_connection_fd(connection) : -1
    let request = HTTPServerRequest(
        method: method.map { String(cString: $0) } ?? "", target: context.target, fields: fields.items, body: body,
        peerUserID: descriptor >= 0 ? UnixSocket.peerUserID(descriptor) : nil)
    let answer = core.respond(to: request, context: context)
    return answer.dropConnection ? .NO : queue(answer, on: connection)
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

private func queue(_ answer: HTTPServerResponse, on connection: OpaquePointer) -> MHD_Result {
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
    return MHD_queue_response(connection, UInt32(answer.status), response)
}
