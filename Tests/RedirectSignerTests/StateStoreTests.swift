import EthereumPrimitives
import RedirectSigner
import SignerKitTestSupport
import Synchronization
import Testing

@Suite("State store")
struct StateStoreTests {
    @Test func statesAreUUIDv4AndDistinct() {
        var seen = Set<String>()
        for _ in 0..<1000 {
            let state = WaypointStateStore.randomState()
            #expect(WaypointStateStore.isStateShaped(state), "\(state)")
            #expect(seen.insert(state).inserted)
        }
        #expect(!WaypointStateStore.isStateShaped("f47ac10b-58cc-1372-a567-0e02b2c3d479"))
        #expect(!WaypointStateStore.isStateShaped("not-a-state"))
    }

    @Test func claimOnceThenReplay() async throws {
        let store = WaypointStateStore(timeout: .seconds(60), clock: ManualClock())  // no real time passes on it
        let pending = await store.issue(for: .sign)
        #expect(await store.isPending(pending.state))
        let claimed = try await store.claim(pending.state)
        #expect(claimed.method == .sign)
        await #expect(throws: WaypointError.replayedState) { try await store.claim(pending.state) }
        #expect(await store.pendingCount == 0)
    }

    @Test func unknownStateIsRejected() async {
        let store = WaypointStateStore()
        _ = await store.issue(for: .auth)
        await #expect(throws: WaypointError.unknownState) { try await store.claim(WaypointStateStore.randomState()) }
        await #expect(throws: WaypointError.unknownState) { try await store.claim("") }
    }

    @Test("a state is claimable until its deadline on the store's clock, and expired from then on")
    func expiredStateIsRejected() async throws {
        let clock = ManualClock()
        let store = WaypointStateStore(timeout: .seconds(60), clock: clock)
        let pending = await store.issue(for: .send)
        #expect(pending.deadline == clock.now.advanced(by: .seconds(60)))
        let other = await store.issue(for: .sign)
        clock.advance(by: .seconds(60) - .nanoseconds(1))
        #expect(await store.isPending(pending.state))
        #expect(try await store.claim(other.state).method == .sign)
        clock.advance(by: .nanoseconds(1))
        #expect(await !store.isPending(pending.state))
        await #expect(throws: WaypointError.expiredState) { try await store.claim(pending.state) }
        await #expect(throws: WaypointError.expiredState) { try await store.claim(pending.state) }
    }

    @Test("finished states are remembered for ten timeouts, then a replay is simply unknown")
    func finishedStatesAreForgottenAfterTenTimeouts() async throws {
        let clock = ManualClock()
        let store = WaypointStateStore(timeout: .seconds(60), clock: clock)
        let used = await store.issue(for: .sign)
        _ = try await store.claim(used.state)
        clock.advance(by: .seconds(600) - .nanoseconds(1))
        _ = await store.issue(for: .sign)  // issuing prunes
        await #expect(throws: WaypointError.replayedState) { try await store.claim(used.state) }
        clock.advance(by: .nanoseconds(1))
        _ = await store.issue(for: .sign)
        await #expect(throws: WaypointError.unknownState) { try await store.claim(used.state) }
    }

    @Test func abandonedStateIsExpired() async {
        let store = WaypointStateStore()
        let pending = await store.issue(for: .sign)
        await store.abandon(pending.state)
        await #expect(throws: WaypointError.expiredState) { try await store.claim(pending.state) }
    }
}

@Suite("Redirect comparison")
struct RedirectComparisonTests {
    @Test func equivalentSpellingsMatch() async throws {
        let transport = try DeepLinkTransportStub(redirectURI: "mydapp://callback")
        let session = WaypointSession(clientId: "c", transport: transport, clock: ManualClock())
        for (delivered, accepted) in [
            ("mydapp://callback", true), ("mydapp://callback/", true), ("MyDapp://Callback", true),
            ("mydapp://callback/x", false), ("mydapp://other", false), ("otherapp://callback", false),
        ] {
            let signing = Task { try await session.signPersonalMessage("m", account: TestKeys.wallet.address) }
            let state = try await transport.nextState()
            let signature = try await TestKeys.wallet.sign(prehash: PersonalMessage.digest(Array("m".utf8)))
            let reply = await session.deliver(
                "\(delivered)?state=\(state)&method=sign&type=success&data=\(signature.hex)")
            #expect(reply.isAccepted == accepted, "\(delivered)")
            if accepted {
                #expect(try await signing.value == signature)
            } else {
                await #expect(throws: WaypointError.self) { try await signing.value }
            }
        }
        await session.close()
    }
}

/// A transport that only records the states of opened requests (callbacks come through
/// `WaypointSession.deliver`).
final class DeepLinkTransportStub: WaypointTransport {
    let redirectURI: String
    private let states = Arrivals<String>()
    private let taken = Mutex(0)
    private let stream = AsyncStream<TransportEvent>.makeStream()

    init(redirectURI: String) throws { self.redirectURI = redirectURI }

    func start() async throws(WaypointError) -> AsyncStream<TransportEvent> { stream.stream }
    func open(_ request: PreparedRequest) async throws(WaypointError) { states.append(request.state) }
    func stop() async { stream.continuation.finish() }

    /// The state of the next opened request not yet taken, once it is opened.
    func nextState() async throws -> String {
        let index = taken.withLock { taken in
            defer { taken += 1 }
            return taken
        }
        return try await states.element(index)
    }
}
