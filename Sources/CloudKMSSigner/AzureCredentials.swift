import Foundation

/// A Microsoft Entra application's client credentials (tenant, client id, client secret) and the authority
/// its tokens come from. The secret never appears in `description`, `debugDescription` or a mirror.
public struct AzureCredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The directory (tenant) id.
    public let tenantID: String
    /// The application (client) id.
    public let clientID: String
    /// The client secret.
    let clientSecret: String
    /// The authority host, `https://login.microsoftonline.com` unless overridden.
    public let authority: URL

    /// The production authority.
    public static let defaultAuthority: URL = {
        guard let url = URL(string: "https://login.microsoftonline.com") else { preconditionFailure("bad authority") }
        return url
    }()

    /// Credentials given directly.
    ///
    /// - Throws: ``CloudKMSError/invalidCredentials(_:source:field:reason:)`` for a tenant that cannot be a
    ///   path segment of the token URL.
    public init(
        tenantID: String, clientID: String, clientSecret: String, authority: URL = AzureCredentials.defaultAuthority
    ) throws(CloudKMSError) {
        guard !tenantID.isEmpty, tenantID.count <= 256,
            tenantID.utf8.allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D
                    || $0 == 0x2E
            })
        else {
            throw .invalidCredentials(
                .azureKeyVault, source: "AZURE_TENANT_ID", field: "tenant",
                reason: "\(CloudKMSError.quoted(tenantID)) is not a tenant id or domain")
        }
        self.tenantID = tenantID
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.authority = authority
    }

    /// `AZURE_TENANT_ID`, `AZURE_CLIENT_ID` and `AZURE_CLIENT_SECRET` from `environment`, with the authority
    /// from `AZURE_AUTHORITY_HOST` when set.
    ///
    /// - Throws: ``CloudKMSError/missingCredentials(_:_:)`` naming the variables not set,
    ///   ``CloudKMSError/invalidEndpoint(_:source:reason:)`` for an authority that is neither https nor loopback
    ///   http.
    public static func resolve(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CloudKMSError) -> AzureCredentials {
        let value = { (name: String) -> String? in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let names = ["AZURE_TENANT_ID", "AZURE_CLIENT_ID", "AZURE_CLIENT_SECRET"]
        let missing = names.filter { value($0) == nil }
        guard missing.isEmpty, let tenant = value(names[0]), let client = value(names[1]), let secret = value(names[2])
        else { throw .missingCredentials(.azureKeyVault, "\(missing.joined(separator: ", ")) not set") }
        var authority = defaultAuthority
        if let host = value("AZURE_AUTHORITY_HOST") {
            authority = try CloudEndpoint.url(host, source: "AZURE_AUTHORITY_HOST", provider: .azureKeyVault)
        }
        return try AzureCredentials(tenantID: tenant, clientID: client, clientSecret: secret, authority: authority)
    }

    /// `{authority}/{tenant}/oauth2/v2.0/token`.
    var tokenURL: URL? { URL(string: "\(CloudEndpoint.origin(authority))/\(tenantID)/oauth2/v2.0/token") }

    /// `AzureCredentials(client C of tenant T at https://…)`; never the secret.
    public var description: String {
        "AzureCredentials(client \(CloudKMSError.quoted(clientID)) of tenant \(CloudKMSError.quoted(tenantID)) "
            + "at \(authority.absoluteString))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The public fields only.
    public var customMirror: Mirror {
        Mirror(self, children: ["tenantID": tenantID, "clientID": clientID, "authority": authority])
    }
}
