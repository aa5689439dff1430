import Foundation
import SignerKitHTTP
import Synchronization

/// An ``HTTPTransport`` that answers from a script, for tests of code above HTTP: each request is recorded,
/// then answered by the first rule whose matcher takes it (``on(_:times:answer:)``), else by the next
/// queued answer (``enqueue(_:)``), in order. With nothing left to answer it fails the request with
/// ``HTTPError/notSent(_:)`` naming it, so an unexpected request shows in the test's failure.
///
/// ```swift
/// let transport = ScriptedHTTPTransport([.status(503), .status(200, body: #"{"ok":true}"#)])
/// transport.on({ $0.method == "GET" }, answer: .failure(.outcomeUnknown("reset")))
/// transport.requests.count   // every request seen, in order
/// ```
public final class ScriptedHTTPTransport: HTTPTransport {
    /// One scripted answer.
    public enum Answer: Sendable {
        /// A complete response.
        case response(HTTPResponse)
        /// A failure, as a real transport reports it.
        case failure(HTTPError)

        /// A response with `status`, header fields (names lower-cased, as transports give them) and a UTF-8 body.
        public static func status(_ status: Int, headers: [String: String] = [:], body: String = "") -> Answer {
            let fields = headers.sorted { $0.key < $1.key }.map { HTTPHeader($0.key.lowercased(), $0.value) }
            return .response(HTTPResponse(status: status, headers: fields, body: Array(body.utf8)))
        }
    }

    private struct Rule {
        let matches: @Sendable (HTTPRequest) -> Bool
        var remaining: Int?
        let answer: Answer
    }

    private struct State {
        var queue: [Answer]
        var rules: [Rule] = []
        var seen: [HTTPRequest] = []
    }

    private let state: Mutex<State>

    /// A transport that answers with `answers`, one per request, in order.
    public init(_ answers: [Answer] = []) {
        state = Mutex(State(queue: answers))
    }

    /// Adds answers to the end of the queue.
    public func enqueue(_ answers: Answer...) {
        state.withLock { $0.queue += answers }
    }

    /// Answers requests `matches` takes with `answer`, `times` times (`nil`: every time), before the queue.
    /// Rules are tried in the order they were added.
    public func on(_ matches: @escaping @Sendable (HTTPRequest) -> Bool, times: Int? = nil, answer: Answer) {
        state.withLock { $0.rules.append(Rule(matches: matches, remaining: times, answer: answer)) }
    }

    /// Every request received, in order (answered or not).
    public var requests: [HTTPRequest] { state.withLock { $0.seen } }

    /// How many answers are still queued.
    public var queuedCount: Int { state.withLock { $0.queue.count } }

    /// Records `request` and answers it from the script.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let answer = state.withLock { state -> Answer? in
            state.seen.append(request)
            if let index = state.rules.firstIndex(where: { $0.remaining != 0 && $0.matches(request) }) {
                if let left = state.rules[index].remaining { state.rules[index].remaining = left - 1 }
                return state.rules[index].answer
            }
            return state.queue.isEmpty ? nil : state.queue.removeFirst()
        }
        switch answer {
        case .response(let response)?: return response
        case .failure(let error)?: throw error
        case nil: throw .notSent("ScriptedHTTPTransport: nothing scripted for \(request.method) \(request.url)")
        }
    }
}
