import Testing

@testable import SignerKitHTTPServer

/// The ledger's rules on instants it is given: receive deadlines and the connection closed to make room.
@Suite("HTTP server: the connection ledger")
struct ConnectionLedgerTests {
    let start = ContinuousClock.now
    let address: [UInt8] = [127, 0, 0, 1]
    let other: [UInt8] = [127, 0, 0, 2]

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start.advanced(by: .milliseconds(milliseconds)) }

    @Test("a request must arrive whole within the timeout of the connection's start or the previous answer's end")
    func receiveDeadline() {
        var ledger = ConnectionLedger(receiveTimeout: .seconds(10), maxConnections: 64, maxConnectionsPerAddress: 64)
        let (tag, _) = ledger.open(descriptor: 7, address: address, at: at(0))
        ledger.lineArrived(tag)
        #expect(ledger.overdue(at: at(9_999)).isEmpty)
        // Bytes trickling in (the line, a credentialed head) move nothing.
        ledger.headArrived(tag, credentialed: true)
        #expect(ledger.overdue(at: at(10_000)) == [7])
        #expect(ledger.overdue(at: at(20_000)).isEmpty, "named once")

        let (second, _) = ledger.open(descriptor: 8, address: address, at: at(0))
        ledger.requestReceived(second)
        #expect(ledger.overdue(at: at(3_600_000)).isEmpty, "a request being handled has no receive deadline")
        ledger.requestEnded(second, at: at(3_600_000))
        #expect(ledger.overdue(at: at(3_609_999)).isEmpty)
        #expect(ledger.overdue(at: at(3_610_000)) == [8], "the next request's deadline counts from the answer's end")
        ledger.close(second)
        ledger.close(tag)
        #expect(ledger.entries.isEmpty)
    }

    @Test("past seven eighths of the limit a newcomer closes the longest-waiting connection without credentials")
    func makingRoom() {
        var ledger = ConnectionLedger(receiveTimeout: .seconds(10), maxConnections: 8, maxConnectionsPerAddress: 8)
        var tags: [UInt] = []
        for index in 0..<7 {
            let (tag, victim) = ledger.open(descriptor: Int32(index), address: address, at: at(index))
            #expect(victim == nil, "seven of eight fit")
            ledger.lineArrived(tag)
            tags.append(tag)
        }
        ledger.headArrived(tags[0], credentialed: true)
        ledger.requestReceived(tags[1])  // being handled
        let (_, victim) = ledger.open(descriptor: 100, address: address, at: at(10))
        #expect(victim == 2, "the credentialed and the handled one are spared; the next oldest goes")
        // The one cut no longer counts: one more newcomer fits without closing anything.
        let (_, none) = ledger.open(descriptor: 101, address: address, at: at(11))
        #expect(none == 3, "eight live again: the next oldest goes")
        ledger.close(tags[2])
        ledger.close(tags[3])
        // A keep-alive connection waiting again after its answer is judged by when it began to wait.
        ledger.requestEnded(tags[1], at: at(12))
        let (_, third) = ledger.open(descriptor: 102, address: address, at: at(13))
        #expect(third == 4)
    }

    @Test("a silent newcomer is spared for the grace; small servers never make room")
    func silentGraceAndSmallServers() {
        var ledger = ConnectionLedger(receiveTimeout: .seconds(10), maxConnections: 8, maxConnectionsPerAddress: 8)
        for index in 0..<7 { _ = ledger.open(descriptor: Int32(index), address: address, at: at(0)) }
        #expect(ledger.open(descriptor: 7, address: address, at: at(999)).victim == nil, "all silent, all young")
        #expect(ledger.open(descriptor: 8, address: address, at: at(1_000)).victim != nil, "silent for the grace")

        var small = ConnectionLedger(receiveTimeout: .seconds(10), maxConnections: 7, maxConnectionsPerAddress: 7)
        for index in 0..<7 {
            let (tag, victim) = small.open(descriptor: Int32(index), address: address, at: at(index))
            small.lineArrived(tag)
            #expect(victim == nil)
        }
    }

    @Test("past seven eighths of the per-address limit the room is made among that address's connections")
    func perAddress() {
        var ledger = ConnectionLedger(receiveTimeout: .seconds(10), maxConnections: 64, maxConnectionsPerAddress: 8)
        for index in 0..<7 {
            ledger.lineArrived(ledger.open(descriptor: Int32(index), address: other, at: at(index)).tag)
        }
        for index in 7..<14 {
            let (tag, victim) = ledger.open(descriptor: Int32(index), address: address, at: at(100 + index))
            ledger.lineArrived(tag)
            #expect(victim == nil)
        }
        let (_, victim) = ledger.open(descriptor: 99, address: address, at: at(200))
        #expect(victim == 7, "the oldest of the newcomer's address, though the other address's are older")
        #expect(ledger.open(descriptor: 98, address: nil, at: at(201)).victim == nil, "a Unix socket has no address")

        // An address whose connections all showed credentials: room comes from all once the total is high.
        var crowded = ConnectionLedger(receiveTimeout: .seconds(10), maxConnections: 16, maxConnectionsPerAddress: 8)
        for index in 0..<7 {
            crowded.headArrived(
                crowded.open(descriptor: Int32(index), address: address, at: at(index)).tag, credentialed: true)
        }
        #expect(crowded.open(descriptor: 50, address: address, at: at(10)).victim == nil, "nothing to close, 8 of 16")
        for index in 0..<6 {
            crowded.lineArrived(crowded.open(descriptor: Int32(20 + index), address: other, at: at(20 + index)).tag)
        }
        #expect(crowded.open(descriptor: 51, address: address, at: at(30)).victim == 20, "15 of 16: the oldest of all")
    }

    @Test("at a limit with nothing to close, the newcomer itself is closed; libmicrohttpd's limits stand higher")
    func limits() {
        var ledger = ConnectionLedger(receiveTimeout: .seconds(10), maxConnections: 8, maxConnectionsPerAddress: 8)
        for index in 0..<8 { #expect(ledger.open(descriptor: Int32(index), address: address, at: at(0)).victim == nil) }
        #expect(ledger.open(descriptor: 8, address: address, at: at(10)).victim == 8, "all young and silent")

        var perAddress = ConnectionLedger(receiveTimeout: .seconds(10), maxConnections: 64, maxConnectionsPerAddress: 4)
        for index in 0..<4 {
            let (tag, victim) = perAddress.open(descriptor: Int32(index), address: address, at: at(0))
            perAddress.lineArrived(tag)
            #expect(victim == nil)
        }
        #expect(perAddress.open(descriptor: 4, address: address, at: at(10)).victim == 4, "no room is made below 8")
        #expect(perAddress.open(descriptor: 5, address: other, at: at(10)).victim == nil)

        #expect(ConnectionLedger.libmicrohttpdLimit(2) == 6)
        #expect(ConnectionLedger.libmicrohttpdLimit(256) == 288)
        #expect(ConnectionLedger.libmicrohttpdLimit(.max) == .max)
    }
}
