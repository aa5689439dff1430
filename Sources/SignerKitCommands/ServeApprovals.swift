import EthereumPrimitives
import Foundation
import SignerKitCurl
import SignerKitService

/// What `signerkit serve` adds for calls held for approval: the webhook (its HMAC key read from its secret
/// file) and the sweep that expires held requests and signs approved ones no call signed.
enum ServeApprovals {
    /// How often the sweep runs.
    static let sweepInterval = Duration.seconds(5)

    /// The configured webhook (`approvals.webhook`), its secret read from its owner-only file; `nil` without one.
    static func webhook(_ configuration: ServiceConfiguration, allowInsecure: Bool) throws(CommandFailure)
        -> ApprovalWebhook?
    {
        guard let webhook = configuration.approvals.webhook else { return nil }
        let (secret, _) = try SecretFile.readLine(
            webhook.secretFile, what: "webhook secret", maximumSize: 4096, allowInsecure: allowInsecure)
        return ApprovalWebhook(
            url: webhook.url, secret: secret, transport: CurlHTTPTransport.shared, clock: SystemClock())
    }

    /// Sweeps every ``sweepInterval`` until cancelled, logging a sweep that did something.
    static func sweep(_ service: SignerService, log: @Sendable (String) -> Void) async {
        while !Task.isCancelled {
            let (expired, signed) = await service.sweepHeldRequests()
            if expired + signed > 0 {
                log(
                    JSONValue.object(
                        JSONObject([
                            "msg": .string("held requests"), "level": .string("info"),
                            "expired": .number(String(expired)), "signed": .number(String(signed)),
                        ])
                    ).serialized)
            }
            do { try await service.clock.sleep(for: sweepInterval) } catch { return }
        }
    }
}
