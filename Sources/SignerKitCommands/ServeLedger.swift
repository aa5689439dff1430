import EthereumPrimitives
import SignerKit
import SignerKitService

/// The audit ledger of `signerkit serve` (`ledger` in the configuration): its checkpoint key, loaded the way
/// `keys` are, and the checkpoints signed by time.
enum ServeLedger {
    /// The ledger's settings, or `nil` when the configuration has no `ledger` (errors name `ledger.…`).
    static func settings(
        _ configuration: ServiceConfiguration, environment: [String: String], allowInsecure: Bool
    ) async throws(CommandFailure) -> AuditLedgerSettings? {
        guard let ledger = configuration.ledger else { return nil }
        let path = "ledger.checkpointKey"
        let signers = try await ServeKeys.signers(
            ledger.checkpointKey, path: path, environment: environment, allowInsecure: allowInsecure)
        guard signers.count == 1, let signer = signers.first else {
            throw .invalidInput("configuration: \(path): names \(signers.count) keys; one key signs checkpoints")
        }
        return AuditLedgerSettings(
            signer: signer, origin: ledger.origin, checkpointEvery: ledger.checkpointEvery,
            checkpointInterval: ledger.checkpointInterval)
    }

    /// Until cancelled: every tenth of the checkpoint interval (at least a second), a checkpoint of every
    /// ledger among `trail` whose newest is older than the interval while records came in. Sleeps on the
    /// service's clock.
    static func checkpointByTime(_ trail: (any AuditTrail)?, settings: AuditLedgerSettings?, clock: any SignerClock)
        async
    {
        guard let interval = settings?.checkpointInterval else { return }
        let ledgers = AuditTrails.ledgers(in: trail)
        guard !ledgers.isEmpty else { return }
        let tick = max(interval / 10, .seconds(1))
        while !Task.isCancelled {
            for ledger in ledgers { await ledger.checkpointIfStale() }
            do { try await clock.sleep(for: tick) } catch { return }
        }
    }
}
