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
    /// A policy file loaded in shadow (`shadowPolicyFile`): what it decides on each signing call is written in
    /// the call's audit record (`shadow`) and never enforced — a candidate policy seen at work before it is
    /// deployed.
    public var shadowPolicyFile: String?
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
    /// The read-only methods passed to the upstream node as they are (`passThrough`; default
    /// ``defaultPassThrough``), matched exactly. Names that sign, send or touch accounts are refused even
    /// here (see ``refusedPassThrough(_:)``): a node with unlocked accounts must never sign for a token holder.
    public var passThrough: Set<String>
    /// The accounts of `keys` that are Ronin payers (`roninPayers`: addresses): each is registered for
    /// `ronin_sponsorTransaction` alone — a payer's hash has no domain byte, so its key signs nothing else —
    /// and every other key for everything but sponsoring.
    public var roninPayers: Set<Address> = []
    /// Safe smart accounts the service signs for (`safes`), each owned by configured keys: messages and typed
    /// data as the Safe (ERC-1271), and with `multiSendCallOnly` and `submitter` EIP-5792 batches.
    public var safes: [ServiceSafe] = []
    /// How held requests are kept and reported (`approvals`; the rules are the policy file's `approvalRules`).
    public var approvals = ServiceApprovals()
    /// The audit ledger (`ledger`): records as leaves of a Merkle tree with signed checkpoints.
    public var ledger: ServiceLedger?

    /// The methods passed through by default: reads of chain state a wallet needs around signing.
    public static let defaultPassThrough: Set<String> = [
        "eth_blockNumber", "eth_call", "eth_estimateGas", "eth_feeHistory", "eth_gasPrice", "eth_getBalance",
        "eth_getBlockByHash", "eth_getBlockByNumber", "eth_getCode", "eth_getLogs", "eth_getStorageAt",
        "eth_getTransactionByHash", "eth_getTransactionCount", "eth_getTransactionReceipt",
        "eth_maxPriorityFeePerGas", "eth_syncing", "net_version", "web3_clientVersion",
    ]

    /// Why `name` may not be passed through (`nil` when it may): only `eth_`, `net_` and `web3_` names of
    /// letters, digits and `_`, and none that signs (`eth_sign…`), sends (`eth_send…`) or names an account
    /// (`…ccount…`, as in `eth_accounts`, `personal_unlockAccount`).
    public static func refusedPassThrough(_ name: String) -> String? {
        guard ["eth_", "net_", "web3_"].contains(where: name.hasPrefix),
            name.utf8.allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5a).contains($0) || (0x61...0x7a).contains($0) || $0 == 0x5f
            })
        else { return "\(EchoedText.abbreviated(name).debugDescription) is not an eth_, net_ or web3_ method name" }
        let lowered = name.lowercased()
        guard !lowered.hasPrefix("eth_sign"), !lowered.hasPrefix("eth_send"), !lowered.contains("ccount") else {
            return "\(name) signs, sends or touches accounts: the service never passes it through"
        }
        return nil
    }

    /// The members a configuration may have.
    public static let members = [
        "listen", "keys", "clients", "upstream", "chainId", "policyFile", "enableEthSign", "limits", "auditLog",
        "journal", "tls", "store", "passThrough", "roninPayers", "safes", "approvals", "ledger", "shadowPolicyFile",
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
        let root = try ConfigurationReader(parsing: jsonText)
        try root.object(allowing: Self.members)
        tls = try root["tls"].ifPresent.map { (json) throws(ServiceConfigurationError) in
            try ServiceTLSFiles(json, folder: folder)
        }
        (host, port) = try Self.listenAddress(try root["listen"].string(), plainHTTP: tls == nil)
        keys = try root["keys"].elements().map { (json) throws(ServiceConfigurationError) in
            try ServiceKeySource(json, folder: folder)
        }
        guard !keys.isEmpty else { throw root["keys"].fail("at least one key is needed") }
        clients = try root["clients"].elements().map { (json) throws(ServiceConfigurationError) in
            try ServiceClient(json)
        }
        guard !clients.isEmpty else { throw root["clients"].fail("at least one client is needed") }
        try ServiceClient.requireDistinct(clients)
        upstream = [:]
        for member in try root["upstream"].ifPresent?.members() ?? [] {
            let chain = try ConfigurationReader(.string(member.key), at: member.value.path).servedChain()
            upstream[chain] = try member.value.httpURL()
        }
        if let chain = root["chainId"].ifPresent {
            defaultChain = try chain.servedChain()
        } else {
            defaultChain = upstream.count == 1 ? upstream.keys.first : nil
        }
        policyFile = try root["policyFile"].ifPresent?.filePath(relativeTo: folder)
        shadowPolicyFile = try root["shadowPolicyFile"].ifPresent?.filePath(relativeTo: folder)
        enablesEthSign = try root["enableEthSign"].ifPresent?.bool() ?? false
        auditLog = try root["auditLog"].ifPresent?.filePath(relativeTo: folder)
        if let store = root["store"].ifPresent {
            guard root["journal"].ifPresent == nil else {
                throw root["journal"].fail("give either journal or store, not both")
            }
            self.store = try ServiceStore(store, folder: folder)
        } else {
            let journal = root["journal"].ifPresent ?? ConfigurationReader(.string("journal.sqlite"), at: "journal")
            store = .sqlite(try journal.filePath(relativeTo: folder))
        }
        passThrough = Self.defaultPassThrough
        if let list = root["passThrough"].ifPresent {
            passThrough = Set(
                try list.elements().map { (item) throws(ServiceConfigurationError) in
                    let name = try item.string()
                    if let refusal = Self.refusedPassThrough(name) { throw item.fail(refusal) }
                    return name
                })
        }
        limits =
            try root["limits"].ifPresent.map { (json) throws(ServiceConfigurationError) in
                try ServiceLimits(json)
            } ?? ServiceLimits()
        roninPayers = Set(
            try root["roninPayers"].ifPresent?.elements().map { (item) throws(ServiceConfigurationError) in
                try item.address()
            } ?? [])
        safes =
            try root["safes"].ifPresent?.elements().map { (item) throws(ServiceConfigurationError) in
                try ServiceSafe(item)
            } ?? []
        approvals =
            try root["approvals"].ifPresent.map { (json) throws(ServiceConfigurationError) in
                try ServiceApprovals(json, folder: folder)
            } ?? ServiceApprovals()
        ledger = try root["ledger"].ifPresent.map { (json) throws(ServiceConfigurationError) in
            try ServiceLedger(json, folder: folder)
        }
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
    /// `{"awsKMS": {"keyId": ID, "region"?: R, "endpointURL"?: URL}}`: an `ECC_SECG_P256K1` key in AWS KMS (id,
    /// ARN or `alias/NAME`); or, instead of `keyId`, `"tag": {"key": K, "value"?: V}` or `"aliasPrefix": P`: every
    /// key carrying the tag or behind an alias with the prefix, each an account. The region and endpoint default
    /// to the AWS variables; credentials come from the environment or the shared credentials file, never from
    /// the configuration.
    case awsKMS(selection: AWSKMSKeys, region: String?, endpointURL: String?)
    /// `{"gcpKMS": {"keyName": NAME, "credentialsFile"?: P, "endpointURL"?: URL}}`: a Google Cloud KMS key version
    /// (`EC_SIGN_SECP256K1_SHA256`); the service-account file defaults to `GOOGLE_APPLICATION_CREDENTIALS`, the
    /// endpoint to `GOOGLE_CLOUD_KMS_ENDPOINT` or Google's.
    case gcpKMS(keyName: String, credentialsFile: String?, endpointURL: String?)
    /// `{"azureKeyVault": {"keyId": URL}}`: an Azure Key Vault key (`P-256K`); client credentials from
    /// `AZURE_TENANT_ID`, `AZURE_CLIENT_ID`, `AZURE_CLIENT_SECRET`, never from the configuration.
    case azureKeyVault(keyID: String)
    /// `{"remoteSigner": {"url": U, "kind"?: "web3signer"|"signerkit", "accounts"?: [0x…], "tokenFile"?: P}}`:
    /// accounts of another signer service (every account it lists when `accounts` is absent), its answers
    /// verified by the dispatcher; the bearer token from the file, never from the configuration.
    case remoteSigner(url: String, kind: String, accounts: [Address]?, tokenFile: String?)

    /// Which AWS KMS keys an `awsKMS` entry names.
    public enum AWSKMSKeys: Sendable, Equatable {
        /// One key: id, ARN or `alias/NAME`.
        case keyID(String)
        /// Every key carrying tag `key` (with `value`, or any value).
        case tag(key: String, value: String?)
        /// Every key an alias starting with the prefix points to.
        case aliasPrefix(String)
    }

    init(_ json: ConfigurationReader, folder: String) throws(ServiceConfigurationError) {
        let object = try json.object()
        if object["keyFile"] != nil {
            try json.object(allowing: ["keyFile"])
            self = .keyFile(try json["keyFile"].filePath(relativeTo: folder))
        } else if object["keystore"] != nil {
            try json.object(allowing: ["keystore", "passwordFile"])
            self = .keystore(
                try json["keystore"].filePath(relativeTo: folder),
                passwordFile: try json["passwordFile"].filePath(relativeTo: folder))
        } else if object["mnemonicFile"] != nil {
            try json.object(allowing: ["mnemonicFile", "passphraseFile", "path"])
            self = .mnemonic(
                try json["mnemonicFile"].filePath(relativeTo: folder),
                passphraseFile: try json["passphraseFile"].ifPresent?.filePath(relativeTo: folder),
                path: try json["path"].ifPresent?.string() ?? "m/44'/60'/0'/0/0")
        } else if object["pkcs11"] != nil {
            try json.object(allowing: ["pkcs11"])
            let token = json["pkcs11"]
            try token.object(allowing: ["module", "tokenLabel", "keyLabel", "pinFile"])
            self = .pkcs11(
                module: try token["module"].filePath(relativeTo: folder),
                tokenLabel: try token["tokenLabel"].string(),
                keyLabel: try token["keyLabel"].string(),
                pinFile: try token["pinFile"].filePath(relativeTo: folder))
        } else if object["awsKMS"] != nil {
            try json.object(allowing: ["awsKMS"])
            let kms = json["awsKMS"]
            try kms.object(allowing: ["keyId", "tag", "aliasPrefix", "region", "endpointURL"])
            let given = ["keyId", "tag", "aliasPrefix"].filter { kms[$0].ifPresent != nil }
            guard given.count == 1 else { throw kms.fail("expected exactly one of keyId, tag or aliasPrefix") }
            let selection: AWSKMSKeys
            switch given[0] {
            case "keyId": selection = .keyID(try kms["keyId"].string())
            case "aliasPrefix": selection = .aliasPrefix(try kms["aliasPrefix"].string())
            default:
                try kms["tag"].object(allowing: ["key", "value"])
                selection = .tag(
                    key: try kms["tag"]["key"].string(), value: try kms["tag"]["value"].ifPresent?.string())
            }
            self = .awsKMS(
                selection: selection, region: try kms["region"].ifPresent?.string(),
                endpointURL: try kms["endpointURL"].ifPresent?.string())
        } else if object["gcpKMS"] != nil {
            try json.object(allowing: ["gcpKMS"])
            let kms = json["gcpKMS"]
            try kms.object(allowing: ["keyName", "credentialsFile", "endpointURL"])
            self = .gcpKMS(
                keyName: try kms["keyName"].string(),
                credentialsFile: try kms["credentialsFile"].ifPresent?.filePath(relativeTo: folder),
                endpointURL: try kms["endpointURL"].ifPresent?.string())
        } else if object["azureKeyVault"] != nil {
            try json.object(allowing: ["azureKeyVault"])
            try json["azureKeyVault"].object(allowing: ["keyId"])
            self = .azureKeyVault(keyID: try json["azureKeyVault"]["keyId"].string())
        } else if object["remoteSigner"] != nil {
            try json.object(allowing: ["remoteSigner"])
            let remote = json["remoteSigner"]
            try remote.object(allowing: ["url", "kind", "accounts", "tokenFile"])
            let kind = try remote["kind"].ifPresent?.string() ?? "web3signer"
            guard ["web3signer", "signerkit"].contains(kind) else {
                throw remote["kind"].fail("expected web3signer or signerkit")
            }
            var accounts: [Address]?
            if let list = remote["accounts"].ifPresent {
                accounts = []
                for element in try list.elements() { accounts?.append(try element.address()) }
                if accounts?.isEmpty == true { throw list.fail("at least one account (or no accounts member)") }
            }
            self = .remoteSigner(
                url: try remote["url"].string(), kind: kind, accounts: accounts,
                tokenFile: try remote["tokenFile"].ifPresent?.filePath(relativeTo: folder))
        } else {
            throw json.fail(
                "expected one of keyFile, keystore, mnemonicFile, pkcs11, awsKMS, gcpKMS, azureKeyVault or remoteSigner"
            )
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
    /// Its roles (`roles`: `["approver"]` lets it approve and reject held requests of its groups).
    public var roles: Set<String> = []
    /// The approver groups it is in (`groups`; an approver needs at least one).
    public var groups: Set<String> = []

    init(_ json: ConfigurationReader) throws(ServiceConfigurationError) {
        try json.object(allowing: ["name", "tokenSha256", "accounts", "methods", "chains", "roles", "groups"])
        name = try json["name"].string()
        guard !name.isEmpty else { throw json["name"].fail("empty") }
        let hash = try json["tokenSha256"].string()
        guard let bytes = try? Hex.decode(hash.hasPrefix("0x") ? hash : "0x" + hash, count: 32) else {
            throw json["tokenSha256"].fail("expected the 64 hex digits of a SHA-256 digest")
        }
        tokenSHA256 = bytes
        accounts = try json["accounts"].ifPresent.map { (list) throws(ServiceConfigurationError) in
            Set(try list.elements().map { (item) throws(ServiceConfigurationError) in try item.address() })
        }
        methods = try json["methods"].ifPresent.map { (list) throws(ServiceConfigurationError) in
            Set(try list.elements().map { (item) throws(ServiceConfigurationError) in try item.string() })
        }
        chains = try json["chains"].ifPresent.map { (list) throws(ServiceConfigurationError) in
            Set(try list.elements().map { (item) throws(ServiceConfigurationError) in try item.servedChain() })
        }
        for item in try json["roles"].ifPresent?.elements() ?? [] {
            let role = try item.string()
            guard Self.roles.contains(role) else {
                throw item.fail("unknown role \(EchoedText.abbreviated(role).debugDescription) (roles: approver)")
            }
            roles.insert(role)
        }
        for item in try json["groups"].ifPresent?.elements() ?? [] {
            let group = try item.string()
            guard !group.isEmpty else { throw item.fail("empty") }
            groups.insert(group)
        }
        guard !roles.contains("approver") || !groups.isEmpty else {
            throw json["groups"].fail("an approver needs at least one group")
        }
    }
}

extension ServiceClient {
    /// Refuses two clients with one name or one token (`clients[2].tokenSha256: the same token as clients[0]`):
    /// a token must mean one client, or it would act as whichever is found first and the other would get 401.
    static func requireDistinct(_ clients: [ServiceClient]) throws(ServiceConfigurationError) {
        var names = Set<String>()
        var tokens: [[UInt8]: Int] = [:]
        for (index, client) in clients.enumerated() {
            guard names.insert(client.name).inserted else {
                throw .init(
                    path: "clients[\(index)].name", problem: "\(EchoedText.abbreviated(client.name)) is used twice")
            }
            if let first = tokens.updateValue(index, forKey: client.tokenSHA256) {
                throw .init(path: "clients[\(index)].tokenSha256", problem: "the same token as clients[\(first)]")
            }
        }
    }
}

/// The PEM files the service serves HTTPS with (`tls`).
public struct ServiceTLSFiles: Sendable, Equatable {
    /// The certificate chain (`certificateFile`), leaf first.
    public var certificateFile: String
    /// The private key (`keyFile`), unencrypted PEM; a secret file (mode 0600 or stricter).
    public var keyFile: String

    init(_ json: ConfigurationReader, folder: String) throws(ServiceConfigurationError) {
        try json.object(allowing: ["certificateFile", "keyFile"])
        certificateFile = try json["certificateFile"].filePath(relativeTo: folder)
        keyFile = try json["keyFile"].filePath(relativeTo: folder)
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
    /// thread of its own); more are closed unanswered (an idle connection closes after 10 s). Past seven
    /// eighths of it a newcomer makes room: the connection without a valid token that has waited longest for
    /// its request is closed.
    public var maxConnections: Int = 256
    /// Connections open at once from one IP address (`maxConnectionsPerAddress`, default 64; room is made past
    /// seven eighths of it as for ``maxConnections``); more from it are closed unanswered.
    public var maxConnectionsPerAddress: Int = 64
    /// How long a whole request (request line, headers, body) may take to arrive, from the connection's start
    /// or the end of the previous answer on a keep-alive connection (`requestReceiveTimeoutMs`, default
    /// 10,000); then the connection is closed without an answer.
    public var requestReceiveTimeout: Duration = .seconds(10)
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

    init(_ json: ConfigurationReader) throws(ServiceConfigurationError) {
        try json.object(allowing: [
            "maxBodyBytes", "maxConcurrentRequests", "maxConnections", "maxConnectionsPerAddress",
            "requestReceiveTimeoutMs", "requestTimeoutMs", "maxBatchSize", "idempotencyLeaseMs",
        ])
        if let value = json["maxBodyBytes"].ifPresent { maxBodyBytes = try value.integer(in: 256...(64 << 20)) }
        if let value = json["maxConcurrentRequests"].ifPresent {
            maxConcurrentRequests = try value.integer(in: 1...4096)
        }
        if let value = json["maxConnections"].ifPresent { maxConnections = try value.integer(in: 1...10_000) }
        if let value = json["maxConnectionsPerAddress"].ifPresent {
            maxConnectionsPerAddress = try value.integer(in: 1...10_000)
        }
        if let value = json["requestReceiveTimeoutMs"].ifPresent {
            requestReceiveTimeout = .milliseconds(try value.integer(in: 100...600_000))
        }
        if let value = json["requestTimeoutMs"].ifPresent {
            requestTimeout = .milliseconds(try value.integer(in: 1...600_000))
        }
        if let value = json["maxBatchSize"].ifPresent { maxBatchSize = try value.integer(in: 1...10_000) }
        if let value = json["idempotencyLeaseMs"].ifPresent {
            let lease = Duration.milliseconds(try value.integer(in: 1...86_400_000))
            guard lease >= requestTimeout * 2 else {
                throw value.fail("must be at least two request timeouts (a claim must outlive its request)")
            }
            idempotencyLease = lease
        }
    }
}

/// A Safe the service signs for (`safes[i]`):
/// `{"address": "0x…", "owners": ["0x…", …], "threshold": n, "multiSendCallOnly": "0x…", "submitter": "0x…"}`.
/// `owners` are addresses of configured keys; with `multiSendCallOnly` (MultiSendCallOnly v1.4.1) and
/// `submitter` (a configured key that sends the Safe's `execTransaction` and pays its gas), the Safe executes
/// EIP-5792 batches by itself.
public struct ServiceSafe: Sendable, Equatable {
    /// The Safe's address.
    public var address: Address
    /// The owners that sign (addresses of configured keys).
    public var owners: [Address]
    /// How many owners sign each answer.
    public var threshold: Int
    /// How it runs batches, if it does.
    public var batchExecution: SafeAccountSigner.BatchExecution?

    init(_ json: ConfigurationReader) throws(ServiceConfigurationError) {
        try json.object(allowing: ["address", "owners", "threshold", "multiSendCallOnly", "submitter"])
        address = try json["address"].address()
        owners = try json["owners"].elements().map { (item) throws(ServiceConfigurationError) in try item.address() }
        threshold = try json["threshold"].integer(in: 1...max(1, owners.count))
        switch (json["multiSendCallOnly"].ifPresent, json["submitter"].ifPresent) {
        case (nil, nil): batchExecution = nil
        case (let multiSend?, let submitter?):
            batchExecution = SafeAccountSigner.BatchExecution(
                multiSendCallOnly: try multiSend.address(), submitter: try submitter.address())
        case (_?, nil): throw json.fail("multiSendCallOnly needs submitter")
        case (nil, _?): throw json.fail("submitter needs multiSendCallOnly")
        }
    }
}
