import Dispatch
import Foundation
import SignerKitCurl
import SignerKitHTTPServer
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Where a handler runs: on the thread of its connection, before and after it waits on another thread.
@Suite("HTTP server layer: handler threads")
struct HandlerThreadTests {
    /// The calling thread as an integer.
    static func currentThread() -> UInt { UInt(bitPattern: Int(bitPattern: pthread_self())) }

    /// The body of `GET /` (nil unless the status is 200).
    static func get(_ server: HTTPServer) async throws -> String? {
        let url = try #require(URL(string: server.baseURLString + "/"))
        let response = try await CurlHTTPTransport.shared.send(
            HTTPRequest(method: "GET", url: url, timeout: .seconds(30)))
        return response.status == 200 ? String(decoding: response.body, as: UTF8.self) : nil
    }

    @Test("a continuation resumed on another thread runs on the connection's thread, which sends the answer")
    func continuationOnConnectionThread() async throws {
        let server = try HTTPServer { _ in
            let before = Self.currentThread()
            let resumer = await withCheckedContinuation { (continuation: CheckedContinuation<UInt, Never>) in
                DispatchQueue.global().async { continuation.resume(returning: Self.currentThread()) }
            }
            let after = Self.currentThread()
            return .text(200, "\(before == after) \(resumer != after)")
        }
        for _ in 0..<20 { #expect(try await Self.get(server) == "true true") }
        await server.stop()
    }

    @Test("child tasks of a handler run beside it: two children that wait for each other both finish")
    func childTasksRunBesideTheHandler() async throws {
        let server = try HTTPServer { _ in
            let gate = Rendezvous()
            let sum = await withTaskGroup(of: Int.self) { group in
                group.addTask {
                    await gate.arrive(); return 1
                }
                group.addTask {
                    await gate.arrive(); return 2
                }
                return await group.reduce(0, +)
            }
            return .text(200, "\(sum)")
        }
        #expect(try await Self.get(server) == "3")
        await server.stop()
    }
}

/// Two arrivals: the first waits until the second comes.
private actor Rendezvous {
    private var waiting: CheckedContinuation<Void, Never>?
    private var arrived = 0

    func arrive() async {
        arrived += 1
        if arrived == 2 {
            waiting?.resume()
            waiting = nil
            return
        }
        await withCheckedContinuation { waiting = $0 }
    }
}
