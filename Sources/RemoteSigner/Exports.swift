// `RemoteSignerClient`'s API takes an `HTTPTransport`: it comes with `import RemoteSigner`
// (see docs/ARCHITECTURE.md, "What `import SignerKit` brings").
@_exported import SignerKitHTTP
