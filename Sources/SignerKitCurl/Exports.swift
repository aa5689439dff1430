// `CurlHTTPTransport` is an `HTTPTransport` taking and giving SignerKitHTTP's messages, so
// `import SignerKitCurl` brings them.
@_exported import SignerKitHTTP
