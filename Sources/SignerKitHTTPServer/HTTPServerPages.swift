extension HTTPServerResponse {
    /// An HTML page that must not be cached, framed or leak its URL as a referrer.
    package static func html(
        _ status: Int, _ page: String, contentSecurityPolicy: String? = "default-src 'none'; style-src 'unsafe-inline'"
    ) -> HTTPServerResponse {
        var headers: [(String, String)] = [
            ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
            ("Referrer-Policy", "no-referrer"),
            ("X-Frame-Options", "DENY"), ("X-Content-Type-Options", "nosniff"),
        ]
        if let contentSecurityPolicy { headers.append(("Content-Security-Policy", contentSecurityPolicy)) }
        return HTTPServerResponse(status: status, headers: headers, body: Array(page.utf8))
    }

    /// A `302 Found` to `location`.
    package static func redirect(to location: String) -> HTTPServerResponse {
        HTTPServerResponse(
            status: 302,
            headers: [("Location", location), ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer")],
            body: [])
    }
}

/// HTML text escaping for the pages the listener and the simulator serve.
package enum HTML {
    /// Escapes `& < > " '`.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A small self-contained page.
    package static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>\(escape(title))</title>
        <style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}
        pre{white-space:pre-wrap;word-break:break-all;background:#f4f4f4;padding:.75rem;border-radius:4px}
        dt{font-weight:600;margin-top:.5rem}button{font-size:1rem;padding:.5rem 1.25rem;margin-right:.75rem}
        .ok{color:#176117}.bad{color:#a11}</style></head>
        <body>\(body)</body></html>
        """
    }
}
