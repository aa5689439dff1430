/// The message framing rules of RFC 9112 §6 that libmicrohttpd 0.9 does not enforce, applied to a request's
/// header fields before its body is read. libmicrohttpd lets `Transfer-Encoding` win over `Content-Length` and
/// keeps the connection, reads the first of several `Content-Length` fields, and takes any coding but a lone
/// `chunked` as "read until the connection closes"; each of those would let a proxy in front of the server and
/// the server see different requests (request smuggling).
enum HTTPFraming {
    /// The answer refusing a request whose framing is ambiguous or unsupported (the connection then closes),
    /// or `nil` when its framing is sound: at most one `Transfer-Encoding` value, exactly `chunked`, then no
    /// `Content-Length` and a `version` past `HTTP/1.0` (which has no transfer codings); every `Content-Length`
    /// field the same.
    static func refusal(_ fields: [(name: String, value: String)], version: String) -> HTTPServerResponse? {
        let lengths = fields.filter { $0.name == "content-length" }.map { trimmed($0.value) }
        let codings = fields.filter { $0.name == "transfer-encoding" }
            .flatMap { $0.value.split(separator: ",", omittingEmptySubsequences: false) }
            .map { trimmed(Substring($0)).lowercased() }
        if !codings.isEmpty {
            guard lengths.isEmpty else {
                return .text(400, "a request may not have both Content-Length and Transfer-Encoding")
            }
            guard version != "HTTP/1.0" else { return .text(400, "HTTP/1.0 has no Transfer-Encoding") }
            if codings != ["chunked"] {
                return codings.contains("chunked")
                    ? .text(400, "chunked must be the one transfer coding")
                    : .text(501, "the only transfer coding served is chunked")
            }
        }
        if let first = lengths.first, lengths.contains(where: { $0 != first }) {
            return .text(400, "the Content-Length fields disagree")
        }
        return nil
    }

    private static func trimmed(_ text: some StringProtocol) -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(text.drop(while: isBlank).reversed().drop(while: isBlank).reversed())
    }
}
