/// The line a long-running command writes to standard error once it accepts connections:
/// `listening http://HOST:PORT` (`https://` when it serves TLS). `serve`, `pay serve-local` and
/// `waypoint simulate-wallet` all write it, so a script or a test waits for each the same way.
enum ReadyLine {
    /// Writes the ready line for `origin` (`scheme://host:port`, no trailing slash).
    static func announce(_ origin: String, to io: any CommandIO) {
        io.writeStandardError("listening \(origin)\n")
    }
}
