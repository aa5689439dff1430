import EthereumPrimitives
import Foundation
import SecureMemory
import SignerKitHTTPServer
import Synchronization
import WalletConnectPay

/// Answers the page host's requests: `GET /pay/<token>` (the page) and `POST /pay/<token>/message` (a
/// verdict from it); anything else is 404, a wrong `Host` 400.
final class PageRouter: Sendable {
    private let sessions = Mutex<[PageSession]>([])
    private let port = Atomic<UInt16>(0)

    func setPort(_ value: UInt16) { port.store(value, ordering: .releasing) }
    func add(_ session: PageSession) { sessions.withLock { $0.append(session) } }
    func remove(_ token: String) { sessions.withLock { $0.removeAll { $0.token == token } } }

    func handle(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let port = port.load(ordering: .acquiring)
        let hosts: Set<String> = ["127.0.0.1:\(port)", "localhost:\(port)"]
        guard let host = request.listenerHost(among: hosts) else {
            return .text(400, "a request must carry exactly one Host header naming this listener")
        }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0].isEmpty, parts[1] == "pay", let session = session(String(parts[2])) else {
            return .text(404, "no such page")
        }
        switch (request.method, parts.count) {
        case ("GET", 3):
            return page(session)
        case ("POST", 4) where parts[3] == "message":
            guard request.values("origin") == ["http://\(host)"] else {
                return .text(403, "a verdict must come from the page itself")
            }
            return verdict(request.body, session: session)
        default:
            return .text(405, "method not allowed")
        }
    }

    /// The session with `token` (compared in constant time).
    private func session(_ token: String) -> PageSession? {
        sessions.withLock { sessions in
            var found: PageSession?
            for session in sessions where ConstantTime.equal(session.token.utf8, token.utf8) { found = session }
            return found
        }
    }

    private func page(_ session: PageSession) -> HTTPServerResponse {
        let nonce = DataCollectionPageHost.randomHex(16)
        let html = DataCollectionPageHTML.page(
            formURL: session.formURL, formOrigin: session.formOrigin, messagePath: "/pay/\(session.token)/message",
            optionId: session.optionId, nonce: nonce)
        return .html(
            200, html,
            contentSecurityPolicy: DataCollectionPageHTML.contentSecurityPolicy(
                formOrigin: session.formOrigin, nonce: nonce))
    }

    /// `{"origin","data"}` from the page: an accepted message settles the session (`complete`/`error`),
    /// anything else is `ignored`; `closed` when the session had already ended.
    private func verdict(_ body: [UInt8], session: PageSession) -> HTTPServerResponse {
        guard case .object(let object)? = try? JSONValue(parsing: body), let origin = object["origin"]?.stringValue,
            let data = object["data"]?.stringValue,
            let message = DataCollectionMessage.accept(data, origin: origin, formURL: session.formURL)
        else { return Self.answer("ignored") }
        guard session.slot.fulfill(message.outcome) else { return Self.answer("closed") }
        switch message {
        case .complete: return Self.answer("complete")
        case .error: return Self.answer("error")
        }
    }

    private static func answer(_ outcome: String) -> HTTPServerResponse {
        HTTPServerResponse(
            status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
            body: Array(#"{"outcome":"\#(outcome)"}"#.utf8))
    }
}
