// `AWSKMSClient`'s API takes an `HTTPTransport` and an `HTTPRetryPolicy`: they come with `import AWSKMSSigner`
// (see docs/ARCHITECTURE.md, "What `import SignerKit` brings").
@_exported import SignerKitHTTP
