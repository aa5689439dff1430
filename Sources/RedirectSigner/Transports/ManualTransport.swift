import Foundation
import Synchronization

/// The transport for machines without a usable browser or listener: prints the request URL and
/// reads the callback URL the user pastes back (the address the browser ended on after approving).
///
/// Each non-empty line read is one callback; the outcome is printed back. Lines are read on a
/// thread of their own, so a blocking `readLine` never holds up the concurrency pool; ``stop()``
/// ends the stream at once, and the reading thread ends at the next line or end of input.
public final class ManualTransport: WaypointTransport {
    /// The redirect requests carry; pasted callbacks must start with it.
    public let redirectURI: String
    private let readLine: @Sendable () -> String?
    private let write: @Sendable (String) -> Void
    private let stopped = Mutex(false)
    private let events: AsyncStream<TransportEvent>
    private let continuation: AsyncStream<TransportEvent>.Continuation

    /// A transport that reads lines with `readLine` (blocking; `nil` at end of input) and writes
    /// instructions and outcomes with `write` (each call one or more whole lines).
    public init(
        redirectURI: String, readLine: @escaping @Sendable () -> String?, write: @escaping @Sendable (String) -> Void
    ) {
        self.redirectURI = redirectURI
        self.readLine = readLine
        self.write = write
        (events, continuation) = AsyncStream<TransportEvent>.makeStream()
    }

    /// Reads standard input and writes to standard error.
    public static func standardIO(redirectURI: String) -> ManualTransport {
        ManualTransport(
            redirectURI: redirectURI, readLine: { Swift.readLine(strippingNewline: true) },
            write: { FileHandle.standardError.write(Data($0.utf8)) })
    }

    /// Starts reading pasted lines.
    public func start() async throws(WaypointError) -> AsyncStream<TransportEvent> {
        let thread = Thread { [self] in readLoop() }
        thread.name = "signerkit-manual-transport"
        thread.start()
        return events
    }

    /// Prints the URL and what to do with it.
    public func open(_ request: PreparedRequest) async throws(WaypointError) {
        write(
            """
            open: \(request.url)
            Open that URL in a browser and approve the request, then paste here the address the browser is
            sent to (it starts with \(redirectURI)):

            """)
    }

    /// Ends the stream.
    public func stop() async {
        stopped.withLock { $0 = true }
        continuation.finish()
    }

    private func readLoop() {
        while !stopped.withLock({ $0 }), let line = readLine() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { continue }
            let write = self.write
            let answered = Mutex(false)
            let event = TransportEvent.callback(
                IncomingCallback(url: trimmed) { reply in
                    guard
                        answered.withLock({ done in
                            defer { done = true }; return !done
                        })
                    else { return }
                    write(reply.isAccepted ? "accepted: \(reply.text)\n" : "rejected: \(reply.text)\n")
                })
            if case .terminated = continuation.yield(event) { break }
        }
        continuation.finish()
    }
}
