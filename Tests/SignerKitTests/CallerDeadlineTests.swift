import EthereumPrimitives
import EthereumRPC
import Foundation
import SignerKitHTTP
import SignerKitTestSupport
import Testing

/// A node call ends by the earlier of its own timeout and the deadline of the request it serves.
@Suite("CallerDeadline bounds node calls")
struct CallerDeadlineTests {
    @Test("a call made within a caller's deadline is sent with that deadline, not its own 30 s")
    func nodeCallTakesTheCallersDeadline() async throws {
        let clock = ManualClock()
        let transport = ScriptedHTTPTransport([
            .status(200, body: #"{"jsonrpc":"2.0","id":1,"result":"0x1"}"#),
            .status(200, body: #"{"jsonrpc":"2.0","id":2,"result":"0x1"}"#),
        ])
        let client = JSONRPCClient(
            url: try #require(URL(string: "http://node.test/rpc")), timeout: .seconds(30), transport: transport,
            clock: clock)
        let callerDeadline = clock.now.advanced(by: .seconds(2))
        _ = await CallerDeadline.within(callerDeadline, on: clock) { try? await client.chainId() }
        _ = try await client.chainId()
        let deadlines = transport.requests.map(\.deadline)
        #expect(deadlines == [callerDeadline, clock.now.advanced(by: .seconds(30))])
        #expect(CallerDeadline.current == nil, "the deadline ends with its scope")
    }

    @Test("an inner deadline later than the caller's does not extend it")
    func innerDeadlineNeverExtends() async {
        let clock = ManualClock()
        let outer = clock.now.advanced(by: .seconds(1))
        let seen = await CallerDeadline.within(outer, on: clock) {
            await CallerDeadline.within(clock.now.advanced(by: .seconds(60)), on: clock) {
                CallerDeadline.current?.instant
            }
        }
        #expect(seen == outer)
        let later = clock.now.advanced(by: .seconds(5))
        #expect(CallerDeadline.bounding(later, on: clock) == later, "no caller deadline: its own")
    }

    @Test("a call on another clock gets the time that remains on the caller's clock")
    func otherClock() async {
        let caller = ManualClock()
        let callee = ManualClock()
        callee.advance(by: .seconds(3600))
        let deadline = caller.now.advanced(by: .seconds(2))
        let bounded = await CallerDeadline.within(deadline, on: caller) {
            CallerDeadline.bounding(callee.now.advanced(by: .seconds(30)), on: callee)
        }
        #expect(bounded == callee.now.advanced(by: .seconds(2)))
    }
}
