import EthereumPrimitives
import Foundation
import SignerKit

/// What `signerkit serve --config FILE` runs: one JSON file (docs/SERVICE.md has a complete example).
///
/// ```json
/// {"listen": "127.0.0.1:0", "keys": [{"keyFile": "k.hex"}],
///  "clients": [{"name": "app", "tokenSha256": "<hex of SHA-256 of the bearer token>"}],
///  "upstream": {"eip155:1337": "http://127.0.0.1:8545"}, "policyFile": "policy.json"}
/// ```
///
/// Relative paths are relative to the file's folder. Unknown members are refused, so a typo never
/// silently weakens the service.
public struct ServiceConfiguration: Sendable {
    /// The address to listen on (`listen`): an IPv4 or IPv6 literal and a port (0 picks a free one). Plain
    /// HTTP is served on loopback only; any address needs `tls`.
    public var host: String
    /// The port (0: a free one).
    public var port: UInt16
    /// Where signing keys come from (`keys`), in order.
    public var keys: [ServiceKeySource]
    /// Who may call (`clients`).
    public var clients: [ServiceClient]
    /// The upstream node per chain (`upstream`): fills and broadcasts transactions, answers proxied calls.
    public var upstream: [ChainID: URL]
    /// The chain of `eth_chainId` and of requests that name none (`chainId`; default: the only upstream
    /// chain).
    public var defaultChain: ChainID?
    /// A policy file (`policyFile`), as `signerkit sign --policy` reads.
    public var policyFile: String?
    /// Whether `eth_sign` (raw-hash signing) is served (`enableEthSign`, default false).
    public var enablesEthSign: Bool
    /// HTTPS (`tls`: `{"certificateFile": P, "keyFile": P}`, PEM): without it the service speaks plain HTTP on
    /// loopback only.
    public var tls: ServiceTLSFiles?
    /// Request limits (`limits`).
    public var limits: ServiceLimits
    /// The audit log file (`auditLog`): one JSON line per call, fsynced before the answer.
    public var auditLog: String?
    /// Where the transaction journal, the idempotency keys and (with PostgreSQL) the audit rows live (`store`;
    /// default `{"sqlite": "journal.sqlite"}`, and `"journal": P` means `{"sqlite": P}`): every transaction is
    /// recorded there before it is broadcast.
    public var store: ServiceStore

    /// The members a configuration may have.
    public static let members = [
        "listen", "keys", "clients", "upstream", "chainId", "policyFile", "enableEthSign", "limits", "auditLog",
        "journal", "tls", "store",
    ]

    /// Reads the configuration at `path`.
    ///
    /// - Throws: ``ServiceConfigurationError`` naming the key path.
    public static func load(path: String) throws(ServiceConfigurationError) -> ServiceConfiguration {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ServiceConfigurationError(path: "", problem: "cannot read \(EchoedText.abbreviated(path))")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try ServiceConfiguration(jsonText: text, relativeTo: folder)
    }

    /// Parses configuration text; relative paths are resolved against `folder`.
    ///
    /// - Throws: ``ServiceConfigurationError`` naming the key path.
    public init(jsonText: String, relativeTo folder: String) throws(ServiceConfigurationError) {
        let root: JSONValue
        do { root = try JSONValue(parsing: jsonText) } catch { throw .init(path: "", problem: "\(error)") }
        let reader = ConfigurationReader(folder: folder)
        let object = try reader.object(root, "")
        try reader.onlyMembers(object, Self.members, "")
        tls = try object["tls"].map { (value) throws(ServiceConfigurationError) in
            try ServiceTLSFiles(json: value, reader: reader)
        }
        (host, port) = try Self.listenAddress(try reader.string(object["listen"], "listen"), plainHTTP: tls == nil)
        keys = try reader.array(object["keys"], "keys").enumerated().map {
            (index, value) throws(ServiceConfigurationError) in
            try ServiceKeySource(json: value, path: "keys[\(index)]", reader: reader)
        }
        guard !keys.isEmpty else { throw .init(path: "keys", problem: "at least one key is needed") }
        clients = try reader.array(object["clients"], "clients").enumerated().map {
            (index, value) throws(ServiceConfigurationError) in
            try ServiceClient(json: value, path: "clients[\(index)]", reader: reader)
        }
        guard !clients.isEmpty else { throw .init(path: "clients", problem: "at least one client is needed") }
        var names = Set<String>()
        for (index, client) in clients.enumerated() where !names.insert(client.name).inserted {
            throw .init(path: "clients[\(index)].name", problem: "\(EchoedText.abbreviated(client.name)) is used twice")
        }
        upstream = [:]
        if let value = object["upstream"] {
            for member in try reader.object(value, "upstream").members {
                let path = "upstream.\(EchoedText.abbreviated(member.key))"
                let chain = try reader.chain(.string(member.key), path)
                upstream[chain] = try reader.httpURL(member.value, path)
            }
        }
        if let value = object["chainId"] {
            defaultChain = try reader.chain(value, "chainId")
        } else {
            defaultChain = upstream.count == 1 ? upstream.keys.first : nil
        }
        policyFile = try object["policyFile"].map { (value) throws(ServiceConfigurationError) in
            try reader.path(value, "policyFile")
        }
        enablesEthSign =
            try object["enableEthSign"].map { (value) throws(ServiceConfigurationError) in
                try reader.bool(value, "enableEthSign")
            } ?? false
        auditLog = try object["auditLog"].map { (value) throws(ServiceConfigurationError) in
            try reader.path(value, "auditLog")
        }
        switch (object["journal"], object["store"]) {
        case (_?, _?): throw .init(path: "journal", problem: "give either journal or store, not both")
        case (nil, let store?): self.store = try ServiceStore(json: store, reader: reader)
        case (let journal, nil): store = .sqlite(try reader.path(journal ?? .string("journal.sqlite"), "journal"))
        }
        limits =
            try object["limits"].map { (value) throws(ServiceConfigurationError) in
                try ServiceLimits(json: value, reader: reader)
            } ?? ServiceLimits()
    }

    /// `HOST:PORT` or `[IPv6]:PORT`, with an IP literal (no host names: the service binds exactly what it is told),
    /// for `plainHTTP` on loopback: bearer tokens and signatures never cross a network in plain HTTP.
    static func listenAddress(_ text: String, plainHTTP: Bool) throws(ServiceConfigurationError) -> (String, UInt16) {
        let fail = ServiceConfigurationError(
            path: "listen",
            problem: "\(EchoedText.abbreviated(text).debugDescription) is not HOST:PORT with an IP address")
        guard let colon = text.lastIndex(of: ":") else { throw fail }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let port = UInt16(text[text.index(after: colon)...]), !host.isEmpty else { throw fail }
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        let isIPv4 = inet_pton(AF_INET, host, &ipv4) == 1
        guard isIPv4 || inet_pton(AF_INET6, host, &ipv6) == 1 else { throw fail }
        // 127.0.0.0/8 (network byte order: the first byte is 127) or ::1.
        let loopback = isIPv4 ? (UInt32(bigEndian: ipv4.s_addr) >> 24) == 127 : host == "::1"
        guard loopback || !plainHTTP else {
            throw ServiceConfigurationError(
                path: "listen",
                problem: "plain HTTP is served on loopback only (127.0.0.0/8 or ::1); other addresses need \"tls\"")
        }
        return (host, port)
    }
}

/// Where one signing key of the service comes from (secrets are read from files, never from the
/// configuration itself).
public enum ServiceKeySource: Sendable, Equatable {
    /// `{"keyFile": P}`: a 0x-hex private key.
    case keyFile(String)
    /// `{"keystore": P, "passwordFile": P}`: a Web3 Secret Storage v3 keystore.
    case keystore(String, passwordFile: String)
    /// `{"mnemonicFile": P, "passphraseFile"?: P, "path"?: "m/44'/60'/0'/0/0"}`: a BIP-39 mnemonic.
    case mnemonic(String, passphraseFile: String?, path: String)
    /// `{"pkcs11": {"module": P, "tokenLabel": L, "keyLabel": K, "pinFile": P}}`: a key on a PKCS#11 token.
    case pkcs11(module: String, tokenLabel: String, keyLabel: String, pinFile: String)

    init(json: JSONValue, path: String, reader: ConfigurationReader) throws(ServiceConfigurationError) {
        let object = try reader.object(json, path)
        if let key = object["keyFile"] {
            try reader.onlyMembers(object, ["keyFile"], path)
            self = .keyFile(try reader.path(key, path + ".keyFile"))
        } else if let keystore = object["keystore"] {
            try reader.onlyMembers(object, ["keystore", "passwordFile"], path)
            self = .keystore(
                try reader.path(keystore, path + ".keystore"),
                passwordFile: try reader.path(object["passwordFile"], path + ".passwordFile"))
        } else if let mnemonic = object["mnemonicFile"] {
            try reader.onlyMembers(object, ["mnemonicFile", "passphraseFile", "path"], path)
            self = .mnemonic(
                try reader.path(mnemonic, path + ".mnemonicFile"),
                passphraseFile: try object["passphraseFile"].map { (value) throws(ServiceConfigurationError) in
                    try reader.path(value, path + ".passphraseFile")
                },
                path: try object["path"].map { (value) throws(ServiceConfigurationError) in
                    try reader.string(value, path + ".path")
                } ?? "m/44'/60'/0'/0/0")
        } else if let token = object["pkcs11"] {
            try reader.onlyMembers(object, ["pkcs11"], path)
            let inner = try reader.object(token, path + ".pkcs11")
            let prefix = path + ".pkcs11"
            try reader.onlyMembers(inner, ["module", "tokenLabel", "keyLabel", "pinFile"], prefix)
            self = .pkcs11(
                module: try reader.path(inner["module"], prefix + ".module"),
                tokenLabel: try reader.string(inner["tokenLabel"], prefix + ".tokenLabel"),
                keyLabel: try reader.string(inner["keyLabel"], prefix + ".keyLabel"),
                pinFile: try reader.path(inner["pinFile"], prefix + ".pinFile"))
        } else {
            throw .init(path: path, problem: "expected one of keyFile, keystore, mnemonicFile or pkcs11")
        }
    }
}

/// One caller of the service: its bearer token (kept as its SHA-256 only) and what it may do.
public struct ServiceClient: Sendable, Equatable {
    /// The name (in logs and the audit trail).
    public var name: String
    /// SHA-256 of the bearer token.
    public var tokenSHA256: [UInt8]
    /// The accounts it may sign with (`accounts`; `nil`: all).
    public var accounts: Set<Address>?
    /// The methods it may call (`methods`; `nil`: all).
    public var methods: Set<String>?
    /// The chains it may use (`chains`; `nil`: all).
    public var chains: Set<ChainID>?

    init(json: JSONValue, path: String, reader: ConfigurationReader) throws(ServiceConfigurationError) {
        let object = try reader.object(json, path)
        try reader.onlyMembers(object, ["name", "tokenSha256", "accounts", "methods", "chains"], path)
        name = try reader.string(object["name"], path + ".name")
        guard !name.isEmpty else { throw .init(path: path + ".name", problem: "empty") }
        let hash = try reader.string(object["tokenSha256"], path + ".tokenSha256")
        guard let bytes = try? Hex.decode(hash.hasPrefix("0x") ? hash : "0x" + hash, count: 32) else {
            throw .init(path: path + ".tokenSha256", problem: "expected the 64 hex digits of a SHA-256 digest")
        }
        tokenSHA256 = bytes
        accounts = try object["accounts"].map { (value) throws(ServiceConfigurationError) in
            Set(
                try reader.array(value, path + ".accounts").enumerated().map {
                    (index, item) throws(ServiceConfigurationError) in
                    try reader.address(item, "\(path).accounts[\(index)]")
                })
        }
        methods = try object["methods"].map { (value) throws(ServiceConfigurationError) in
            Set(
                try reader.array(value, path + ".methods").enumerated().map {
                    (index, item) throws(ServiceConfigurationError) in
                    try reader.string(item, "\(path).methods[\(index)]")
                })
        }
        chains = try object["chains"].map { (value) throws(ServiceConfigurationError) in
            Set(
                try reader.array(value, path + ".chains").enumerated().map {
                    (index, item) throws(ServiceConfigurationError) in
                    try reader.chain(item, "\(path).chains[\(index)]")
                })
        }
    }
}

/// The PEM files the service serves HTTPS with (`tls`).
public struct ServiceTLSFiles: Sendable, Equatable {
    /// The certificate chain (`certificateFile`), leaf first.
    public var certificateFile: String
    /// The private key (`keyFile`), unencrypted PEM; a secret file (mode 0600 or stricter).
    public var keyFile: String

    init(json: JSONValue, reader: ConfigurationReader) throws(ServiceConfigurationError) {
        let object = try reader.object(json, "tls")
        try reader.onlyMembers(object, ["certificateFile", "keyFile"], "tls")
        certificateFile = try reader.path(object["certificateFile"], "tls.certificateFile")
        keyFile = try reader.path(object["keyFile"], "tls.keyFile")
    }
}

/// Limits on what one request may cost.
public struct ServiceLimits: Sendable, Equatable {
    /// Largest request body (`maxBodyBytes`, default 1 MiB).
    public var maxBodyBytes: Int = 1 << 20
    /// JSON-RPC requests answered at once (`maxConcurrentRequests`, default 64); one more gets HTTP 503
    /// with `Retry-After` before any JSON-RPC processing.
    public var maxConcurrentRequests: Int = 64
    /// Connections open at once, idle keep-alive ones included (`maxConnections`, default 256; each has a
    /// thread of its own); more are closed unanswered (an idle connection closes after 10 s).
    public var maxConnections: Int = 256
    /// Longest a request may take, upstream calls included (`requestTimeoutMs`, default 30,000).
    public var requestTimeout: Duration = .seconds(30)
    /// Most calls in one JSON-RPC batch (`maxBatchSize`, default 100).
    public var maxBatchSize: Int = 100
    /// How long a claim on an idempotency key lasts when its holder dies (`idempotencyLeaseMs`; default three
    /// request timeouts plus a minute, at least two request timeouts): a retry of a key whose instance was
    /// killed runs once the claim has lapsed.
    public var idempotencyLease: Duration?

    /// ``idempotencyLease`` as configured, or three request timeouts plus a minute.
    public var effectiveIdempotencyLease: Duration { idempotencyLease ?? requestTimeout * 3 + .seconds(60) }

    /// The defaults.
    public init() {}

    init(json: JSONValue, reader: ConfigurationReader) throws(ServiceConfigurationError) {
        let object = try reader.object(json, "limits")
        try reader.onlyMembers(
            object,
            [
                "maxBodyBytes", "maxConcurrentRequests", "maxConnections", "requestTimeoutMs", "maxBatchSize",
                "idempotencyLeaseMs",
            ], "limits")
        if let value = object["maxBodyBytes"] {
            maxBodyBytes = try reader.integer(value, "limits.maxBodyBytes", in: 256...(64 << 20))
        }
        if let value = object["maxConcurrentRequests"] {
            maxConcurrentRequests = try reader.integer(value, "limits.maxConcurrentRequests", in: 1...4096)
        }
        if let value = object["maxConnections"] {
            maxConnections = try reader.integer(value, "limits.maxConnections", in: 1...10_000)
        }
        if let value = object["requestTimeoutMs"] {
            requestTimeout = .milliseconds(try reader.integer(value, "limits.requestTimeoutMs", in: 1...600_000))
        }
        if let value = object["maxBatchSize"] {
            maxBatchSize = try reader.integer(value, "limits.maxBatchSize", in: 1...10_000)
        }
        if let value = object["idempotencyLeaseMs"] {
            let lease = Duration.milliseconds(
                try reader.integer(value, "limits.idempotencyLeaseMs", in: 1...86_400_000))
            guard lease >= requestTimeout * 2 else {
                throw .init(
                    path: "limits.idempotencyLeaseMs",
                    problem: "must be at least two request timeouts (a claim must outlive its request)")
            }
            idempotencyLease = lease
        }
    }
}
