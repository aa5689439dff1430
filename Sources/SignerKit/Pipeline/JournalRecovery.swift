import EthereumPrimitives

/// Finishes what crashed or abandoned requests left in a journal, so no account stalls behind one of them:
/// every unresolved transaction the node does not know is re-sent — the *same* bytes, never a new signature
/// — and one whose nonce another transaction took is resolved as rejected (its nonce is free again).
///
/// Without it, a transaction journalled by a request that died before broadcasting is sent only when that
/// request is retried with its key; until then every later transaction of the account waits behind its nonce.
/// The signer service sweeps at start-up and then periodically (``run(every:clock:onSweep:beforeSweep:)``). Only transactions at
/// or above the account's mined nonce are looked at, so a sweep costs one `eth_getTransactionCount` per
/// account with unresolved entries and a few calls per transaction still pending. Entries stay unresolved
/// (a mined one is left for the request that journalled it to report), so a sweep never changes what a
/// retry is answered with.
public struct JournalRecovery: Sendable {
    /// The journal swept.
    public let journal: any TransactionJournal
    /// The node of each chain (entries of other chains are left alone).
    public let nodes: [ChainID: any EthereumNode]

    /// Sweeps `journal` through `nodes`.
    public init(journal: any TransactionJournal, nodes: [ChainID: any EthereumNode]) {
        self.journal = journal
        self.nodes = nodes
    }

    /// What one sweep did.
    public struct Report: Sendable, Equatable {
        /// Transactions the node did not know, sent again (or found known on the way).
        public var resent: [Bytes32] = []
        /// Transactions that can never be mined (their nonce was taken), resolved as rejected.
        public var rejected: [Bytes32] = []
        /// Transactions whose sending failed for another reason this time (tried again next sweep).
        public var failed: [Bytes32] = []
        /// Unresolved transactions not looked at because their chain has no node or the node did not answer
        /// (looked at next sweep).
        public var unreached = 0

        /// A report of a sweep that did nothing.
        public init() {}

        /// Whether the sweep found nothing to do.
        public var isEmpty: Bool { resent.isEmpty && rejected.isEmpty && failed.isEmpty && unreached == 0 }

        /// Whether every unresolved transaction was looked at and is now known to the node or resolved: what a
        /// dead request left is on its way.
        public var isComplete: Bool { failed.isEmpty && unreached == 0 }
    }

    /// One sweep over every unresolved entry.
    ///
    /// - Throws: ``JournalError`` when the journal cannot be read.
    public func sweep() async throws(JournalError) -> Report {
        var report = Report()
        let pending = try await journal.unresolvedEntries()
        var lanes: [NonceLane: [JournalEntry]] = [:]
        for entry in pending { lanes[NonceLane(account: entry.account, chain: entry.chain), default: []].append(entry) }
        for (lane, entries) in lanes {
            let account = lane.account
            let node = nodes[lane.chain]
            let mined = await NodeCall.shielded { () async -> UInt256? in
                try? await node?.transactionCount(of: account, block: .latest)
            }
            guard let node, let mined else {
                report.unreached += entries.count
                continue
            }
            // Lowest nonce first: each one sent may let the next be mined.
            for entry in entries.sorted(by: { $0.nonce < $1.nonce }) where entry.nonce >= mined {
                guard await !TransactionBroadcaster.isKnown(entry.hash, by: node) else { continue }
                do throws(DispatchError.Kind) {
                    _ = try await TransactionBroadcaster.replay(entry, journal: journal, node: node)
                    report.resent.append(entry.hash)
                } catch {
                    if case .transactionNotMined = error {
                        report.rejected.append(entry.hash)
                    } else {
                        report.failed.append(entry.hash)
                    }
                }
            }
        }
        return report
    }

    /// Sweeps now and then every `interval` on `clock` until the task is cancelled; `beforeSweep` runs as each
    /// sweep begins, and `onSweep` gets its report (or the journal's error).
    public func run(
        every interval: Duration, clock: any SignerClock = SystemClock(),
        onSweep: @Sendable (Result<Report, JournalError>) -> Void = { _ in },
        beforeSweep: @Sendable () async -> Void = {}
    ) async {
        while !Task.isCancelled {
            await beforeSweep()
            do throws(JournalError) { onSweep(.success(try await sweep())) } catch { onSweep(.failure(error)) }
            do { try await clock.sleep(for: interval) } catch { return }
        }
    }
}
