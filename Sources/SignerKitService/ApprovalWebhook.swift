import EthereumPrimitives
import Foundation
import SecureMemory
import SignerKitHTTP

/// Tells the caller's system when a held request is final: an HTTP POST of the request's status object (as
/// `signerkit_requestStatus` answers it, with `requestId`) to the configured URL, signed with HMAC-SHA256 over
/// the timestamp and the body:
///
/// ```
/// SignerKit-Signature: t=1800000000,v1=<hex of HMAC-SHA256(secret, "1800000000." + body)>
/// ```
///
/// A receiver recomputes the MAC with the shared secret, compares in constant time and refuses old
/// timestamps (replays). A delivery is retried on a transport error or a non-2xx status, after 1, 4 and 16 s
/// on the injected clock, then given up (the outcome stays available through `signerkit_requestStatus`).
public final class ApprovalWebhook: Sendable {
    /// Where requests are posted.
    public let url: URL
    private let secret: SecureBytes
    private let transport: any HTTPTransport
    private let clock: any SignerClock
    private let now: @Sendable () -> Date
    /// The waits between attempts.
    static let backoff: [Duration] = [.seconds(1), .seconds(4), .seconds(16)]
    /// How long one attempt may take.
    static let attemptTimeout = Duration.seconds(10)

    /// Posts to `url`, signing with `secret`, through `transport`; waits on `clock`, timestamps from `now`.
    public init(
        url: URL, secret: SecureBytes, transport: any HTTPTransport, clock: any SignerClock,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.url = url
        self.secret = secret
        self.transport = transport
        self.clock = clock
        self.now = now
    }

    /// The `SignerKit-Signature` value of `body` at `timestamp` (Unix seconds) under `secret`.
    public static func signature(of body: [UInt8], timestamp: Int64, secret: SecureBytes) -> String? {
        HMACSHA256.mac(key: secret, message: Array("\(timestamp).".utf8) + body).map {
            "t=\(timestamp),v1=" + Hex.encode($0, prefix: false)
        }
    }

    /// Delivers `status` (a JSON object); true once the receiver answered 2xx.
    @discardableResult
    public func deliver(_ status: JSONValue) async -> Bool {
        let body = Array(status.serialized.utf8)
        for attempt in 0...Self.backoff.count {
            if attempt > 0 {
                do { try await clock.sleep(for: Self.backoff[attempt - 1]) } catch { return false }
            }
            let timestamp = Int64(max(0, now().timeIntervalSince1970.rounded(.down)))
            guard let signature = Self.signature(of: body, timestamp: timestamp, secret: secret) else { return false }
            let request = HTTPRequest(
                method: "POST", url: url,
                headers: [
                    HTTPHeader("Content-Type", "application/json"), HTTPHeader("SignerKit-Signature", signature),
                ],
                body: body, timeout: Self.attemptTimeout, maxResponseBytes: 64 << 10)
            if let response = try? await transport.send(request), (200..<300).contains(response.status) {
                return true
            }
        }
        return false
    }
}
