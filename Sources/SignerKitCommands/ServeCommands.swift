import AWSKMSSigner
import EthereumPrimitives
import EthereumRPC
import Foundation
import PKCS11Signer
import SignerKit
import SignerKitHTTPServer
import SignerKitService
import SoftwareSigner

/// `signerkit serve --config FILE` and `signerkit serve check-config --config FILE`: the signer service.
enum ServeCommands {
    /// `--config FILE`.
    static let configFlag = FlagSpec.option("--config", value: "FILE", help: "the service configuration (JSON)")

    /// `serve [check-config] --config FILE`.
    static let command = Command.leaf(
        "serve", summary: "Run the signer service: SignerKit's dispatcher behind Ethereum JSON-RPC over HTTP.",
        details: """
            Serves JSON-RPC 2.0 (batches too) at / with Authorization: Bearer <token>: eth_accounts, eth_chainId,
            personal_sign, eth_signTypedData_v4 (and eth_signTypedData), eth_signTransaction, eth_sendTransaction
            (filled and broadcast through the chain's upstream node), signerkit_signActions (wallet RPC actions →
            their results in order, all or nothing), signerkit_preview and, for the keys of "roninPayers",
            ronin_sponsorTransaction (a player's 0x64 request back with the payer's signature); eth_sign only
            with "enableEthSign";
            the read-only methods of "passThrough" (eth_blockNumber, eth_call, eth_getBalance, … by default) are passed
            to the default chain's upstream node, and no other. GET /healthz answers {"status":"ok","version":"X.Y.Z"}.
            A missing or unknown token gets HTTP 401. Prints "listening http://HOST:PORT" on stderr once ready;
            SIGTERM or SIGINT drains the requests in flight and exits 0.
            serve check-config reads the configuration and every key it names, checks the upstream nodes'
            chain ids, prints "configuration OK" and exits; an invalid configuration exits 65 naming the key path
            in the file. docs/SERVICE.md describes the configuration.
            """,
        synopsis: "[check-config] --config FILE",
        flags: [configFlag, SecretFile.allowInsecureFlag],
        positionals: [.positional("check-config", optional: true, help: "only check the configuration")],
        run: run)

    static func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        let checkOnly: Bool
        switch options.positional(0) {
        case nil: checkOnly = false
        case "check-config"?: checkOnly = true
        case let other?: throw context.usageError("unknown argument \(TextSafety.displayArgument(other))")
        }
        let path = try options.required(configFlag.name, "(the service configuration file)")
        let configuration: ServiceConfiguration
        do { configuration = try ServiceConfiguration.load(path: path) } catch {
            throw .invalidInput("\(TextSafety.displayArgument(path)): \(error)")
        }
        let allowInsecure = SecretFile.allowsInsecure(options)
        var signers: [any PrehashSigner] = []
        var backends: [any WalletRpcSigner] = []
        for (index, source) in configuration.keys.enumerated() {
            if case .remoteSigner = source {
                backends.append(
                    try await ServeRemoteSigners.backend(source, path: "keys[\(index)]", allowInsecure: allowInsecure))
                continue
            }
            signers += try await ServeKeys.signers(
                source, path: "keys[\(index)]", environment: context.io.environment, allowInsecure: allowInsecure)
        }
        let upstream = try await ServeKeys.upstreamClients(configuration)
        let ledger = try await ServeLedger.settings(
            configuration, environment: context.io.environment, allowInsecure: allowInsecure)
        let stores = try await ServeStores.open(configuration, ledger: ledger, allowInsecure: allowInsecure)
        let (policies, policySet) = try ServeReload.policies(configuration, usage: stores.usage)
        let service: SignerService
        do {
            service = try SignerService(
                configuration: configuration, signers: signers, backends: backends, upstream: upstream,
                policies: policies,
                journal: stores.journal, idempotency: stores.idempotency, audit: stores.auditTrail,
                heldRequestStore: stores.held,
                webhook: try ServeApprovals.webhook(configuration, allowInsecure: allowInsecure),
                policySet: policySet,
                shadowPolicies: try ServeReload.shadowPolicies(configuration))
        } catch {
            throw .invalidInput("\(TextSafety.displayArgument(path)): \(error)")
        }
        if checkOnly {
            context.printLine(
                "configuration OK: \(service.accounts.count) key(s), \(configuration.clients.count) client(s)")
            return .success
        }
        // One instance per SQLite store: every nonce reservation and open claim found at start is then one a
        // killed run left. The reservations are freed before serving (no account waits for their lease).
        let instanceLock = try stores.lockInstance()
        var earlierRuns: [String] = []
        if instanceLock != nil {
            earlierRuns += [await stores.releaseReservationsOfEarlierRuns()].compactMap { $0 }
            // What a killed run journalled is put on its way first (within one request timeout); once every
            // entry is, that run's idempotency claims end, so their retries run instead of 409.
            let sweep = await ServeRecoveryLog.startupSweep(service, within: configuration.limits.requestTimeout)
            earlierRuns += [sweep.line].compactMap { $0 }
            if sweep.isComplete { earlierRuns += [await stores.releaseClaimsOfEarlierRuns()].compactMap { $0 } }
        }
        let io = context.io
        let handler = ServiceHTTPHandler(service: service, log: { line in io.writeStandardError(line + "\n") })
        let tls = try configuration.tls.map { (files) throws(CommandFailure) in
            try ServeTLS.identity(files, allowInsecure: allowInsecure)
        }
        let server: HTTPServer
        do {
            server = try HTTPServer(
                host: configuration.host, port: configuration.port, limits: handler.limits, tls: tls,
                headCheck: { head in handler.checkHead(head) }, handler: { request in await handler.handle(request) })
        } catch {
            throw .invalidInput("listen: \(error)")
        }
        StopSignal.install()
        ReloadSignal.install()
        ReadyLine.announce(server.baseURLString, to: context.io)
        for line in earlierRuns { context.io.writeStandardError(line + "\n") }
        // Transactions a killed earlier run journalled but never sent go out now, and every half minute
        // after, so no account waits behind one of them. With PostgreSQL, the claims of instances found gone
        // as a sweep began are taken over once it completed.
        let recovery = service.recovery.map { recovery in
            Task {
                await recovery.run(
                    every: SignerService.recoveryInterval,
                    onSweep: { outcome in
                        if let line = ServeRecoveryLog.line(outcome) { io.writeStandardError(line + "\n") }
                        if let line = stores.handOverClaimsOfStoppedInstances(after: outcome) {
                            io.writeStandardError(line + "\n")
                        }
                    },
                    beforeSweep: {
                        if let line = await stores.noteStoppedInstances() { io.writeStandardError(line + "\n") }
                    })
            }
        }
        defer { recovery?.cancel() }
        let heldSweep = Task { await ServeApprovals.sweep(service, log: { io.writeStandardError($0 + "\n") }) }
        defer { heldSweep.cancel() }
        let checkpoints = Task {
            await ServeLedger.checkpointByTime(stores.auditTrail, settings: ledger, clock: service.clock)
        }
        defer { checkpoints.cancel() }
        defer { withExtendedLifetime(instanceLock) {} }
        while !StopSignal.requested {
            if ReloadSignal.take() {
                context.io.writeStandardError(
                    ServeReload.reload(service, configurationPath: path, usage: stores.usage) + "\n")
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        await server.stop()
        return .success
    }
}

/// Keys and upstream nodes of a service configuration, loaded the way the other commands load them.
enum ServeKeys {
    /// The signers of one configured entry: one key, or every AWS KMS key a tag or alias prefix selects (errors
    /// name the entry's path in the configuration).
    static func signers(
        _ source: ServiceKeySource, path: String, environment: [String: String], allowInsecure: Bool
    ) async throws(CommandFailure) -> [any PrehashSigner] {
        if let cloud = try await cloudSigner(source, path: path, environment: environment, allowInsecure: allowInsecure)
        {
            return [cloud]
        }
        guard case .awsKMS(let selection, let region, let endpointURL) = source else {
            return [try await signer(source, path: path, allowInsecure: allowInsecure)]
        }
        do throws(AWSKMSError) {
            let client = AWSKMSClient(
                endpoint: try AWSKMSEndpoint.resolve(
                    region: region, endpointURL: endpointURL, environment: environment),
                credentials: try AWSCredentials.resolve(environment: environment))
            switch selection {
            case .keyID(let id):
                return [try await AWSKMSKeySigner.load(keyID: id, client: client)]
            case .tag(let key, let value):
                return try await AWSKMSKeySigner.loadAll(.tag(key: key, value: value), client: client)
            case .aliasPrefix(let prefix):
                return try await AWSKMSKeySigner.loadAll(.aliasPrefix(prefix), client: client)
            }
        } catch {
            let key: String
            switch selection {
            case .keyID(let id): key = id
            case .tag(let tag, _): key = "tag \(tag)"
            case .aliasPrefix(let prefix): key = "alias prefix \(prefix)"
            }
            throw .invalidInput("configuration: \(path): \(AWSKMSOptions.message(error, keyID: key))")
        }
    }

    /// The signer for one configured key (errors name the key's path in the configuration).
    private static func signer(_ source: ServiceKeySource, path: String, allowInsecure: Bool)
        async throws(CommandFailure)
        -> any PrehashSigner
    {
        do throws(CommandFailure) {
            switch source {
            case .keyFile(let file):
                return CLIKeySigner(key: try KeyFile.read(file, allowInsecure: allowInsecure))
            case .keystore(let file, let passwordFile):
                let keystore = try KeystoreFile.read(file)
                let password = try PasswordOptions.password(file: passwordFile, allowInsecure: allowInsecure)
                defer { password.wipe() }
                return CLIKeySigner(key: try KeystoreFile.decrypt(keystore, password: password, label: file))
            case .mnemonic(let file, let passphraseFile, let derivation):
                let parsed: DerivationPath
                do { parsed = try DerivationPath(parsing: derivation) } catch {
                    throw CommandFailure.invalidInput("path: \(error)")
                }
                do {
                    return try SoftwareKeySigner(mnemonicFile: file, passphraseFile: passphraseFile, path: parsed)
                } catch {
                    throw CommandFailure.invalidInput("\(error)")
                }
            case .pkcs11(let module, let tokenLabel, let keyLabel, let pinFile):
                let pin = try PKCS11Options.pin(file: pinFile, named: "pinFile", allowInsecure: allowInsecure)
                let token = try await PKCS11Options.Session(modulePath: module, tokenLabel: tokenLabel, pin: pin).open()
                return try await PKCS11Options.performRetrying { () throws(PKCS11Error) in
                    try token.signer(for: .label(keyLabel))
                }
            case .awsKMS, .gcpKMS, .azureKeyVault:
                // Keys read with the environment: ``signers(_:path:environment:allowInsecure:)`` loads them.
                throw CommandFailure.invalidInput("cloud KMS keys are loaded with the environment")
            case .remoteSigner:
                throw CommandFailure.invalidInput("a remote signer is a backend (ServeRemoteSigners), not a key")
            }
        } catch {
            throw .invalidInput("configuration: \(path): \(error.message)")
        }
    }

    /// One JSON-RPC client per configured upstream, each checked to serve its chain.
    static func upstreamClients(_ configuration: ServiceConfiguration) async throws(CommandFailure)
        -> [ChainID: JSONRPCClient]
    {
        var clients: [ChainID: JSONRPCClient] = [:]
        for (chain, url) in configuration.upstream.sorted(by: { $0.key.description < $1.key.description }) {
            let client = JSONRPCClient(url: url, timeout: configuration.limits.requestTimeout)
            let reported: UInt256
            do { reported = try await client.chainId() } catch {
                throw .invalidInput("configuration: upstream.\(chain): eth_chainId: \(error)")
            }
            guard reported == chain.eip155ChainID else {
                throw .invalidInput(
                    "configuration: upstream.\(chain): the node reports chain id \(reported.decimalString)")
            }
            clients[chain] = client
        }
        return clients
    }
}

/// The log line of a recovery sweep that did something (`nil` for a sweep that found nothing to do).
enum ServeRecoveryLog {
    /// One sweep before serving, its node calls bounded by `limit`: whether it was complete, and its log line.
    static func startupSweep(_ service: SignerService, within limit: Duration) async -> (
        isComplete: Bool, line: String?
    ) {
        guard let recovery = service.recovery else { return (true, nil) }
        let clock = SystemClock()
        let outcome = await CallerDeadline.within(clock.now.advanced(by: limit), on: clock) {
            () async -> Result<JournalRecovery.Report, JournalError> in
            do throws(JournalError) { return .success(try await recovery.sweep()) } catch { return .failure(error) }
        }
        let complete = if case .success(let report) = outcome { report.isComplete } else { false }
        return (complete, line(outcome))
    }

    static func line(_ outcome: Result<JournalRecovery.Report, JournalError>) -> String? {
        var members: [JSONObject.Member] = [.init(key: "msg", value: .string("recovery"))]
        switch outcome {
        case .failure(let error):
            members += [
                .init(key: "level", value: .string("error")),
                .init(key: "problem", value: .string(EchoedText.abbreviated(error.description))),
            ]
        case .success(let report):
            guard !report.isEmpty else { return nil }
            let level = !report.failed.isEmpty ? "error" : report.unreached > 0 ? "warning" : "info"
            members.append(.init(key: "level", value: .string(level)))
            for (key, hashes) in [("resent", report.resent), ("rejected", report.rejected), ("failed", report.failed)] {
                members.append(.init(key: key, value: .array(hashes.map { .string($0.hex) })))
            }
            if report.unreached > 0 {
                members.append(.init(key: "unreached", value: .number(String(report.unreached))))
            }
        }
        return JSONValue.object(JSONObject(members: members)).serialized
    }
}
