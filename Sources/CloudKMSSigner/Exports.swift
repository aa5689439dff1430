// The clients' API takes an `HTTPTransport` and an `HTTPRetryPolicy`: they come with `import CloudKMSSigner`
// (see docs/ARCHITECTURE.md, "What `import SignerKit` brings").
@_exported import SignerKitHTTP
