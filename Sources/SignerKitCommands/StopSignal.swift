import Foundation
import Synchronization

/// SIGINT/SIGTERM set a flag that long-running commands (`pay serve-local`, `serve`) poll.
enum StopSignal {
    /// Set by the handler.
    static let flag = Atomic<Bool>(false)

    /// Whether SIGINT or SIGTERM arrived.
    static var requested: Bool { flag.load(ordering: .relaxed) }

    /// Installs the handler for SIGINT and SIGTERM.
    static func install() {
        let handler: @convention(c) (Int32) -> Void = { _ in StopSignal.flag.store(true, ordering: .relaxed) }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
    }
}

/// SIGHUP sets a flag that `serve` polls and clears: reload clients and policies.
enum ReloadSignal {
    /// Set by the handler.
    static let flag = Atomic<Bool>(false)

    /// Whether SIGHUP arrived since the last call (and clears it).
    static func take() -> Bool { flag.exchange(false, ordering: .relaxed) }

    /// Installs the handler for SIGHUP.
    static func install() {
        let handler: @convention(c) (Int32) -> Void = { _ in ReloadSignal.flag.store(true, ordering: .relaxed) }
        signal(SIGHUP, handler)
    }
}
