import EIP712
import EthereumPrimitives
import Synchronization

/// Runs hosted-wallet round trips over one transport: issues a single-use state per request,
/// opens the request URL, waits for the callback that carries that state, checks it, verifies the
/// result against what SignerKit computed itself, and tells the deliverer (the browser page, the
/// `deliver` command) the outcome.
///
/// ```swift
/// let transport = try LoopbackTransport(opener: .systemBrowser)
/// let session = WaypointSession(clientId: "my-client", transport: transport)
/// let auth = try await session.authorize()
/// let signature = try await session.signPersonalMessage("hello", account: auth.address)
/// await session.close()
/// ```
///
/// Requests may run concurrently; each waits for its own state. A callback is refused (and its
/// deliverer told why) when it is malformed, its state is unknown, replayed or expired, it answers
/// another method, or it arrived somewhere else than the redirect URI.
public final class WaypointSession: Sendable {
    struct Delivery: Sendable {
        let callback: WaypointCallback
        let reply: @Sendable (CallbackReply) -> Void
    }

    private enum Lifecycle {
        case idle
        case starting(OneShot<Result<Void, WaypointError>>)
        case running(Task<Void, Never>)
        case closed
    }

    /// The hosted wallet's origin.
    public let origin: String
    /// The dapp's client id.
    public let clientId: String
    /// How requests and callbacks travel.
    public let transport: any WaypointTransport
    /// The pending states; its timeout is how long a request waits for its callback.
    public let store: WaypointStateStore
    /// When set, every authorize answer's ID token must pass it before the sign-in is accepted.
    public let idTokenVerifier: IDTokenVerifier?
    /// Where a PKCE authorization code is exchanged (default `{origin}/oauth2/token`).
    public let tokenEndpoint: String

    private let waiters = Mutex<[String: OneShot<Result<Delivery, WaypointError>>]>([:])
    private let lifecycle = Mutex<Lifecycle>(.idle)

    /// A session for `clientId` at `origin` over `transport`; a request fails with
    /// ``WaypointError/timedOut`` when no callback arrives within `timeout` as `clock` tells (default: the
    /// system clock; a test passes a manual one, so only a callback or its own advance ends the wait). With
    /// `idTokenVerifier`, sign-ins are accepted only with an ID token that passes it; PKCE codes are
    /// exchanged at `tokenEndpoint` (default `{origin}/oauth2/token`).
    public init(
        origin: String = Waypoint.defaultOrigin, clientId: String, transport: any WaypointTransport,
        timeout: Duration = .seconds(300), clock: any SignerClock = SystemClock(),
        idTokenVerifier: IDTokenVerifier? = nil, tokenEndpoint: String? = nil
    ) {
        var origin = origin
        while origin.hasSuffix("/") { origin.removeLast() }
        self.origin = origin
        self.clientId = clientId
        self.transport = transport
        store = WaypointStateStore(timeout: timeout, clock: clock)
        self.idTokenVerifier = idTokenVerifier
        self.tokenEndpoint = tokenEndpoint ?? origin + "/oauth2/token"
    }

    /// The redirect URI requests carry (the transport's).
    public var redirectURI: String { transport.redirectURI }

    /// Starts the transport and the routing of its callbacks. Requests call this themselves; calling
    /// it again does nothing.
    public func start() async throws(WaypointError) {
        enum Step {
            case wait(OneShot<Result<Void, WaypointError>>)
            case run(OneShot<Result<Void, WaypointError>>)
            case done
            case closed
        }
        let step: Step = lifecycle.withLock { state in
            switch state {
            case .idle:
                let gate = OneShot<Result<Void, WaypointError>>()
                state = .starting(gate)
                return .run(gate)
            case .starting(let gate): return .wait(gate)
            case .running: return .done
            case .closed: return .closed
            }
        }
        switch step {
        case .done: return
        case .closed: throw .transport("the session is closed")
        case .wait(let gate): try await gate.value().get()
        case .run(let gate):
            do {
                let stream = try await transport.start()
                let pump = Task { [self] in
                    for await event in stream { await receive(event) }
                    failWaiters(.transport("the transport stopped receiving callbacks"))
                }
                lifecycle.withLock { $0 = .running(pump) }
                gate.fulfill(.success(()))
            } catch {
                lifecycle.withLock { $0 = .idle }
                gate.fulfill(.failure(error))
                throw error
            }
        }
    }

    /// Stops the transport; pending requests fail with ``WaypointError/transport(_:)``.
    public func close() async {
        let pump: Task<Void, Never>? = lifecycle.withLock { state in
            defer { state = .closed }
            if case .running(let task) = state { return task }
            return nil
        }
        pump?.cancel()
        await transport.stop()
        failWaiters(.transport("the session was closed"))
    }

    private func failWaiters(_ error: WaypointError) {
        let pending = waiters.withLock { waiters in
            defer { waiters = [:] }
            return Array(waiters.values)
        }
        for slot in pending { slot.fulfill(.failure(error)) }
    }

    // MARK: - Round trips

    /// Sends `request` (whose redirect must be ``redirectURI``) with a fresh state, waits for its
    /// callback and returns what `verify` makes of it. The deliverer of the callback is told whether
    /// `verify` accepted it.
    ///
    /// - Throws: the transport's errors, ``WaypointError/timedOut``, ``WaypointError/cancelled``,
    ///   routing errors for a tampered callback, and whatever `verify` throws (a `type=fail` callback
    ///   is ``WaypointError/walletFailure(_:)`` through the verification helpers).
    public func perform<Result: Sendable>(
        _ request: WaypointRequest, verify: @Sendable (WaypointCallback) async throws(WaypointError) -> Result
    ) async throws(WaypointError) -> Result {
        guard request.redirect == redirectURI else {
            throw .invalidRequest("redirect \(request.redirect) is not this session's \(redirectURI)")
        }
        try await start()
        let pending = await store.issue(for: request.method)
        let slot = OneShot<Swift.Result<Delivery, WaypointError>>()
        waiters.withLock { $0[pending.state] = slot }
        let prepared = PreparedRequest(
            url: request.url(state: pending.state), state: pending.state, method: request.method)
        // Opening runs beside the wait: an opener may block until its browser is done, and the
        // callback (which its browser delivers) must be able to arrive meanwhile.
        let transport = self.transport
        Task {
            do throws(WaypointError) { try await transport.open(prepared) } catch { slot.fulfill(.failure(error)) }
        }
        // The wait ends at the state's own deadline, on the store's clock: a callback the store still
        // accepts is never refused as timed out, and a test's manual clock alone decides when time is up.
        let outcome = await slot.value(
            until: pending.deadline, on: store.clock, expired: .failure(.timedOut), cancelled: .failure(.cancelled))
        waiters.withLock { $0[pending.state] = nil }
        switch outcome {
        case .failure(let error):
            await store.abandon(pending.state)
            throw error
        case .success(let delivery):
            do {
                let value = try await verify(delivery.callback)
                delivery.reply(.accepted(Self.acceptedText(delivery.callback)))
                return value
            } catch {
                delivery.reply(.rejected(error.description))
                throw error
            }
        }
    }

    /// Signs the user in: the keyless wallet address, an optional external account and the ID token.
    public func authorize(
        chainId: UInt256 = UInt256(Waypoint.roninMainnet), scope: [String] = Waypoint.defaultScope
    ) async throws(WaypointError) -> WaypointAuthorization {
        let signIn = try await self.signIn(chainId: chainId, scope: scope)
        guard let address = signIn.address else { throw .verificationFailed("authorize callback has no address") }
        return WaypointAuthorization(
            address: address, secondaryAddress: signIn.secondaryAddress, idToken: signIn.idToken,
            version: signIn.version, identity: signIn.identity)
    }

    /// `personal_sign` of a text message by `account`; the signature is verified against the EIP-191
    /// digest of the message's UTF-8 bytes.
    public func signPersonalMessage(
        _ message: String, account: Address, chainId: UInt256 = UInt256(Waypoint.roninMainnet)
    ) async throws(WaypointError) -> RecoverableSignature {
        try await signPersonalMessage(bytes: Array(message.utf8), account: account, chainId: chainId)
    }

    /// `personal_sign` of message bytes (as RPC params carry them) by `account`.
    ///
    /// - Throws: ``WaypointError/messageNotText`` when the bytes are not UTF-8, before anything is sent.
    public func signPersonalMessage(
        bytes: [UInt8], account: Address, chainId: UInt256 = UInt256(Waypoint.roninMainnet)
    ) async throws(WaypointError) -> RecoverableSignature {
        try await signPersonalMessage(
            bytes: bytes, digest: PersonalMessage.digest(bytes), account: account, chainId: chainId)
    }

    /// `personal_sign` of `bytes`, verified against `digest`: the EIP-191 digest the caller computed
    /// (a resolved request's). A digest that is not the message's makes every answer fail verification.
    public func signPersonalMessage(
        bytes: [UInt8], digest: Digest32, account: Address, chainId: UInt256 = UInt256(Waypoint.roninMainnet)
    ) async throws(WaypointError) -> RecoverableSignature {
        try await signature(
            for: try personalSignRequest(bytes: bytes, account: account, chainId: chainId), verifiedAgainst: digest,
            account: account)
    }

    /// The request for `personal_sign` of `bytes` by `account`.
    func personalSignRequest(bytes: [UInt8], account: Address, chainId: UInt256) throws(WaypointError)
        -> WaypointRequest
    {
        try WaypointRequest.personalSign(
            origin: origin, clientId: clientId, redirect: redirectURI, chainId: chainId, messageBytes: bytes,
            expectAddress: account)
    }

    /// Performs a signing request; the signature is checked against `digest` and `account` when a digest is
    /// given, else only read (the dispatcher checks what a ``WaypointSigner`` returns, once, itself).
    func signature(
        for request: WaypointRequest, verifiedAgainst digest: Digest32?, account: Address
    ) async throws(WaypointError) -> RecoverableSignature {
        try await perform(request) { (callback) throws(WaypointError) in
            guard let digest else { return try WaypointVerification.parsedSignature(callback) }
            return try WaypointVerification.signature(callback, digest: digest, expected: account)
        }
    }

    /// `eth_signTypedData_v4` by `account`; the signature is verified against the EIP-712 digest
    /// SignerKit computes from the same document.
    ///
    /// - Throws: ``WaypointError/invalidRequest(_:)`` for typed data that does not hash or whose
    ///   `domain.chainId` is not `chainId`.
    public func signTypedData(
        _ typedData: TypedData, account: Address, chainId: UInt256 = UInt256(Waypoint.roninMainnet)
    ) async throws(WaypointError) -> RecoverableSignature {
        let digest: Digest32
        do { digest = try typedData.digest() } catch { throw .invalidRequest("typed data: \(error)") }
        return try await signTypedData(typedData, digest: digest, account: account, chainId: chainId)
    }

    /// `eth_signTypedData_v4` of `typedData`, verified against `digest`: the EIP-712 digest the
    /// caller computed (a resolved request's).
    ///
    /// - Throws: ``WaypointError/invalidRequest(_:)`` when `domain.chainId` is not `chainId`.
    public func signTypedData(
        _ typedData: TypedData, digest: Digest32, account: Address, chainId: UInt256 = UInt256(Waypoint.roninMainnet)
    ) async throws(WaypointError) -> RecoverableSignature {
        try await signature(
            for: try typedDataRequest(typedData, account: account, chainId: chainId), verifiedAgainst: digest,
            account: account)
    }

    /// The request for `eth_signTypedData_v4` of `typedData` by `account`.
    ///
    /// - Throws: ``WaypointError/invalidRequest(_:)`` when `domain.chainId` is not `chainId`.
    func typedDataRequest(_ typedData: TypedData, account: Address, chainId: UInt256) throws(WaypointError)
        -> WaypointRequest
    {
        let domainChain: UInt256?
        do { domainChain = try typedData.domainChainId() } catch { throw .invalidRequest("typed data: \(error)") }
        if let domainChain, domainChain != chainId {
            throw .invalidRequest(
                "typed data domain.chainId \(domainChain.decimalString) is not chain \(chainId.decimalString)")
        }
        return WaypointRequest.signTypedData(
            origin: origin, clientId: clientId, redirect: redirectURI, chainId: chainId,
            typedData: Self.document(typedData), expectAddress: account)
    }

    /// A native transfer (`data` nil or empty) or contract call from `account`; returns the
    /// transaction hash the wallet reports (checked to be 32 bytes). `fields` (type, gas, nonce, fees)
    /// are forwarded as given.
    public func sendTransaction(
        to: Address, value: UInt256?, data: [UInt8]?, account: Address?,
        chainId: UInt256 = UInt256(Waypoint.roninMainnet), fields: WaypointTransactionFields = .init()
    ) async throws(WaypointError) -> Bytes32 {
        var request: WaypointRequest
        if let data, !data.isEmpty {
            request = .contractCall(
                origin: origin, clientId: clientId, redirect: redirectURI, chainId: chainId, to: to, data: data,
                value: value, expectAddress: account)
        } else {
            request = .sendNative(
                origin: origin, clientId: clientId, redirect: redirectURI, chainId: chainId, to: to,
                value: value ?? .zero, expectAddress: account)
        }
        request.transactionFields = fields
        return try await perform(request) { (callback) throws(WaypointError) in
            try WaypointVerification.transactionHash(callback)
        }
    }

    // MARK: - Callbacks

    /// Routes a callback URL received outside the transport (an app's `onOpenURL`, a test) and
    /// returns what its deliverer would be told. Waits at most `replyTimeout` (on the session's clock)
    /// for the waiting request to verify it; a cancelled caller is told it was cancelled.
    public func deliver(_ url: String, replyTimeout: Duration = .seconds(30)) async -> CallbackReply {
        let reply = OneShot<CallbackReply>()
        await receive(.callback(IncomingCallback(url: url) { reply.fulfill($0) }))
        return await reply.value(
            until: store.clock.now.advanced(by: replyTimeout), on: store.clock,
            expired: .rejected("no answer from the waiting request"), cancelled: .rejected("the delivery was cancelled")
        )
    }

    /// Handles one transport event.
    func receive(_ event: TransportEvent) async {
        switch event {
        case .abandoned(let state):
            let slot = waiters.withLock { $0[state] }
            slot?.fulfill(.failure(.cancelled))
        case .callback(let incoming):
            let callback: WaypointCallback
            do { callback = try WaypointCallback(parsing: incoming.url) } catch {
                incoming.reply(.rejected(WaypointError.malformedCallback(error).description))
                return
            }
            let pending: WaypointStateStore.Pending
            do { pending = try await store.claim(callback.state) } catch {
                incoming.reply(.rejected(error.description))
                return
            }
            guard let slot = waiters.withLock({ $0.removeValue(forKey: callback.state) }) else {
                incoming.reply(.rejected(WaypointError.expiredState.description))
                return
            }
            let failure: WaypointError?
            if callback.method != pending.method {
                failure = .methodMismatch(expected: pending.method, actual: callback.method)
            } else if !Self.sameRedirect(callback.base, redirectURI) {
                failure = .redirectMismatch(expected: redirectURI, actual: callback.base)
            } else {
                failure = nil
            }
            if let failure {
                slot.fulfill(.failure(failure))
                incoming.reply(.rejected(failure.description))
                return
            }
            if !slot.fulfill(.success(Delivery(callback: callback, reply: incoming.reply))) {
                incoming.reply(.rejected(WaypointError.expiredState.description))
            }
        }
    }

    // MARK: - Helpers

    /// The typed-data document as the hosted wallet receives it: `types`, `primaryType`, `domain`,
    /// `message`, exactly the nodes SignerKit hashed.
    static func document(_ typedData: TypedData) -> JSONValue {
        .object(
            JSONObject([
                "types": typedData.types.value, "primaryType": .string(typedData.primaryType),
                "domain": typedData.domain.value, "message": typedData.message.value,
            ]))
    }

    /// Redirects compare exactly, except that the scheme and host are case-insensitive and, after an
    /// authority, an empty path equals `/` (`mydapp://callback` and `mydapp://callback/` are one target).
    static func sameRedirect(_ a: String, _ b: String) -> Bool {
        normalizedRedirect(a) == normalizedRedirect(b)
    }

    static func normalizedRedirect(_ text: String) -> String {
        guard let colon = text.firstIndex(of: ":") else { return text }
        let scheme = text[..<colon].lowercased()
        var rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { return scheme + ":" + rest }
        rest = rest.dropFirst(2)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        return scheme + "://" + authority.lowercased() + (path.isEmpty ? "/" : String(path))
    }

    private static func acceptedText(_ callback: WaypointCallback) -> String {
        switch callback.method {
        case .auth: "Signed in."
        case .sign: "Signature received and verified."
        case .send: "Transaction submitted."
        }
    }
}
