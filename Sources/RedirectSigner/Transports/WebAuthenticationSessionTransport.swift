#if canImport(AuthenticationServices) && (os(iOS) || os(macOS))
    import AuthenticationServices
    import Foundation

    /// Apple platforms: presents each request in an `ASWebAuthenticationSession` and receives the
    /// custom-scheme callback from it directly (no listener, no socket). Closing the sheet abandons
    /// the request (``WaypointError/cancelled``).
    public final class WebAuthenticationSessionTransport: WaypointTransport {
        /// The custom-scheme redirect, e.g. `mydapp://callback`.
        public let redirectURI: String
        private let presenter: Presenter
        private let events: AsyncStream<TransportEvent>
        private let continuation: AsyncStream<TransportEvent>.Continuation

        /// A transport for `redirectURI` (custom scheme); `anchor` returns the window to present from.
        /// An ephemeral session shares no cookies with Safari.
        ///
        /// - Throws: ``WaypointError/invalidRequest(_:)`` for a redirect without a custom scheme.
        public init(
            redirectURI: String, prefersEphemeralSession: Bool = false,
            anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor
        ) throws(WaypointError) {
            guard let colon = redirectURI.firstIndex(of: ":"), colon != redirectURI.startIndex,
                !["http", "https"].contains(redirectURI[..<colon].lowercased())
            else { throw .invalidRequest("redirect \(redirectURI) must use a custom scheme") }
            self.redirectURI = redirectURI
            presenter = Presenter(
                scheme: String(redirectURI[..<colon]), ephemeral: prefersEphemeralSession, anchor: anchor)
            (events, continuation) = AsyncStream<TransportEvent>.makeStream()
        }

        /// The callbacks of the sessions this transport presents.
        public func start() async throws(WaypointError) -> AsyncStream<TransportEvent> { events }

        /// Presents the request in a new authentication session.
        public func open(_ request: PreparedRequest) async throws(WaypointError) {
            guard let url = URL(string: request.url) else { throw .invalidRequest("request URL is not a URL") }
            let started = await presenter.present(url: url, state: request.state, continuation: continuation)
            guard started else { throw .transport("ASWebAuthenticationSession did not start") }
        }

        /// Ends the callback stream.
        public func stop() async { continuation.finish() }
    }

    /// Owns the sessions on the main actor and provides their presentation anchor.
    @MainActor
    private final class Presenter: NSObject, ASWebAuthenticationPresentationContextProviding {
        let scheme: String
        let ephemeral: Bool
        let anchor: @MainActor @Sendable () -> ASPresentationAnchor
        private var sessions: [String: ASWebAuthenticationSession] = [:]

        nonisolated init(
            scheme: String, ephemeral: Bool, anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor
        ) {
            self.scheme = scheme
            self.ephemeral = ephemeral
            self.anchor = anchor
            super.init()
        }

        func present(url: URL, state: String, continuation: AsyncStream<TransportEvent>.Continuation) -> Bool {
            // The handler may run off the main actor: it only yields and hops back to forget the session.
            let session = ASWebAuthenticationSession(url: url, callback: .customScheme(scheme)) {
                @Sendable [weak self] callbackURL, _ in
                if let callbackURL {
                    continuation.yield(.callback(IncomingCallback(url: callbackURL.absoluteString) { _ in }))
                } else {
                    continuation.yield(.abandoned(state: state))
                }
                let owner = self
                Task { @MainActor in owner?.sessions[state] = nil }
            }
            session.presentationContextProvider = self
            session.prefersEphemeralWebBrowserSession = ephemeral
            sessions[state] = session
            return session.start()
        }

        nonisolated func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
            MainActor.assumeIsolated { anchor() }
        }
    }
#endif
