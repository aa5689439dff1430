import Foundation

/// A Key Vault key id: `https://{vault}.vault.azure.net/keys/{name}/{version}` (any https host, for the
/// sovereign clouds' vault domains; plain http only to a loopback host).
public struct AzureKeyID: Sendable, Equatable, CustomStringConvertible {
    /// The vault's origin, `https://{vault}.vault.azure.net`.
    public let vault: String
    /// The key's name.
    public let name: String
    /// The key's version (a pinned version: an address must not change under a signer).
    public let version: String
    /// The id as given.
    public let text: String

    /// Reads and checks `text`.
    ///
    /// - Throws: ``CloudKMSError/invalidKeyName(_:name:field:reason:)`` naming the part at fault,
    ///   ``CloudKMSError/invalidEndpoint(_:source:reason:)`` for a vault neither https nor loopback http.
    public init(_ text: String) throws(CloudKMSError) {
        let fail = { (field: String, reason: String) -> CloudKMSError in
            .invalidKeyName(.azureKeyVault, name: text, field: field, reason: reason)
        }
        let url = try CloudEndpoint.url(text, source: "--azure-key-id", provider: .azureKeyVault, allowsPath: true)
        let parts = url.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].isEmpty, parts[1] == "keys" else {
            throw fail("path", "expected /keys/NAME/VERSION")
        }
        guard parts.count >= 3, !parts[2].isEmpty else { throw fail("name", "missing") }
        let isName = { (part: Substring) in
            part.count <= 127
                && part.utf8.allSatisfy {
                    (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D
                }
        }
        guard isName(parts[2]) else { throw fail("name", "only letters, digits and - are allowed") }
        guard parts.count >= 4, !parts[3].isEmpty else {
            throw fail("version", "missing (a key id must name its version)")
        }
        guard isName(parts[3]), !parts[3].contains("-") else { throw fail("version", "only letters and digits") }
        guard parts.count == 4 else { throw fail("path", "unexpected segments after the version") }
        vault = CloudEndpoint.origin(url)
        name = String(parts[2])
        version = String(parts[3])
        self.text = text
    }

    /// The key's REST path under the vault, `/keys/{name}/{version}`.
    var path: String { "/keys/\(name)/\(version)" }

    /// The id as given.
    public var description: String { text }
}
