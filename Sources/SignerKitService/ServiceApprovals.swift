import Foundation
import SignerKit
import SignerKitSupport

/// How the service keeps calls held for approval (`approvals`; the rules themselves are in the policy file's
/// `approvalRules`): `{"webhook"?: {"url": U, "secretFile": P}, "pollIntervalMs"?: N}`.
public struct ServiceApprovals: Sendable, Equatable {
    /// Where a final request is reported (an HTTP POST signed with HMAC-SHA256), if anywhere.
    public var webhook: ServiceWebhook?
    /// How often a long-poll reads the store for changes other instances made (`pollIntervalMs`, default 1,000).
    public var pollInterval: Duration = .seconds(1)

    /// No webhook, polls every second.
    public init() {}

    init(_ json: ConfigurationReader, folder: String) throws(ServiceConfigurationError) {
        try json.object(allowing: ["webhook", "pollIntervalMs"])
        webhook = try json["webhook"].ifPresent.map { (item) throws(ServiceConfigurationError) in
            try ServiceWebhook(item, folder: folder)
        }
        if let value = json["pollIntervalMs"].ifPresent {
            pollInterval = .milliseconds(try value.integer(in: 50...60_000))
        }
    }
}

/// The webhook of held requests (`approvals.webhook`): `https`, or plain `http` to this machine only; its
/// HMAC key is read from `secretFile` (owner-only), never written in the configuration.
public struct ServiceWebhook: Sendable, Equatable {
    /// Where requests are posted.
    public var url: URL
    /// The file holding the HMAC key.
    public var secretFile: String

    init(_ json: ConfigurationReader, folder: String) throws(ServiceConfigurationError) {
        try json.object(allowing: ["url", "secretFile"])
        url = try json["url"].httpURL()
        guard url.scheme?.lowercased() == "https" || LoopbackHost.contains(url.host ?? "") else {
            throw json["url"].fail("plain http is allowed to this machine only (localhost, 127.0.0.0/8, ::1)")
        }
        secretFile = try json["secretFile"].filePath(relativeTo: folder)
    }
}

extension ServiceClient {
    /// The roles a client may have: `approver` decides on held requests of its groups.
    public static let roles: Set<String> = ["approver"]

    /// Whether the client approves or rejects held requests (`"roles": ["approver"]`).
    public var isApprover: Bool { roles.contains("approver") }

    /// The client as an approver of held requests.
    var approver: Approver { Approver(name: name, groups: groups) }
}
