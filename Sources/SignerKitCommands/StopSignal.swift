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
