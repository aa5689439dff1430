import EthereumPrimitives
import Foundation
import Testing

@testable import CloudKMSSigner

/// Key names, key ids, endpoints and credentials are checked before any request, with errors naming the
/// field at fault.
@Suite("Cloud KMS key names, key ids, endpoints and credentials")
struct NamesAndChecksumsTests {
    /// A service-account file with no usable key, for the checks before the key.
    static let account =
        #"{"type": "service_account", "client_email": "a@b.iam.gserviceaccount.com", "private_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}"#

    @Test("a Cloud KMS key version name: each malformed field named")
    func gcpNames() async throws {
        let good = "projects/p-1/locations/global/keyRings/r/cryptoKeys/k/cryptoKeyVersions/1"
        let cases: [(String, String)] = [
            ("projects/p/locations/l/keyRings/r/cryptoKeys/k", "cryptoKeyVersions"),
            ("projects/p/locations/l/keyRings/r/cryptoKeys/k/cryptoKeyVersions/v1", "cryptoKeyVersion"),
            ("projects//locations/l/keyRings/r/cryptoKeys/k/cryptoKeyVersions/1", "project"),
            ("projects/p/locations/l/keyRings/r r/cryptoKeys/k/cryptoKeyVersions/1", "keyRing"),
            ("projects/p/regions/l/keyRings/r/cryptoKeys/k/cryptoKeyVersions/1", "locations"),
            (good + "/extra", "name"),
        ]
        #expect(await Self.gcpNameError(good) == nil)
        for (name, field) in cases {
            let error = await Self.gcpNameError(name)
            guard case .invalidKeyName(.googleCloudKMS, name, field, _)? = error else {
                Issue.record("\(name): expected invalidKeyName naming \(field), got \(String(describing: error))")
                continue
            }
        }
    }

    /// The error the check of `name` gives (the first thing ``GCPKMSKeySigner/load(name:client:)`` does).
    static func gcpNameError(_ name: String) async -> CloudKMSError? {
        do throws(CloudKMSError) {
            try GCPKMSKeyName.check(name)
            return nil
        } catch { return error }
    }

    @Test("CRC32C: the check value of RFC 3720 (\"123456789\" → 0xE3069283)")
    func crc32c() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
    }

    @Test("an Azure key id: each malformed part named; http only to loopback")
    func azureIDs() throws {
        let cases: [(String, String)] = [
            ("https://v.vault.azure.net/secrets/k/0123abcd", "path"),
            ("https://v.vault.azure.net/keys/k", "version"),
            ("https://v.vault.azure.net/keys/k_1/0123abcd", "name"),
            ("https://v.vault.azure.net/keys/k/0123abcd/sign", "path"),
        ]
        for (id, field) in cases {
            #expect(throws: CloudKMSError.self) { try AzureKeyID(id) }
            do throws(CloudKMSError) { _ = try AzureKeyID(id) } catch {
                guard case .invalidKeyName(.azureKeyVault, id, field, _) = error else {
                    Issue.record("\(id): expected the field \(field), got \(error)")
                    continue
                }
            }
        }
        let id = try AzureKeyID("https://v.vault.azure.net/keys/signer-1/0123abcd")
        #expect(id.vault == "https://v.vault.azure.net" && id.name == "signer-1" && id.version == "0123abcd")
        do throws(CloudKMSError) {
            _ = try AzureKeyID("http://v.vault.azure.net/keys/k/0123abcd")
            Issue.record("plain http to a vault was accepted")
        } catch {
            guard case .invalidEndpoint(.azureKeyVault, _, let reason) = error else { throw error }
            #expect(reason.contains("plain http is refused"))
        }
        #expect((try? AzureKeyID("http://127.0.0.1:8200/keys/k/0123abcd")) != nil)
    }

    @Test("credentials: missing variables named; a malformed service-account file names the field")
    func credentials() throws {
        do throws(CloudKMSError) {
            _ = try AzureCredentials.resolve(environment: ["AZURE_TENANT_ID": "t"])
            Issue.record("credentials without a client were accepted")
        } catch {
            #expect(error == .missingCredentials(.azureKeyVault, "AZURE_CLIENT_ID, AZURE_CLIENT_SECRET not set"))
        }
        #expect(throws: CloudKMSError.self) {
            _ = try AzureCredentials.resolve(environment: [
                "AZURE_TENANT_ID": "t", "AZURE_CLIENT_ID": "c", "AZURE_CLIENT_SECRET": "s",
                "AZURE_AUTHORITY_HOST": "http://login.example.com",
            ])
        }
        do throws(CloudKMSError) {
            _ = try GoogleServiceAccount.resolve(environment: [:])
            Issue.record("no credentials file was accepted")
        } catch { #expect(error.description.contains("GOOGLE_APPLICATION_CREDENTIALS")) }
        let cases: [(String, String)] = [
            ("[]", "file"), (#"{"type": "authorized_user"}"#, "type"),
            (#"{"type": "service_account", "private_key": "x"}"#, "client_email"),
            (Self.account, "private_key"),
            (
                #"{"type": "service_account", "client_email": "a", "private_key": "k", "token_uri": "http://oauth.example.com/token"}"#,
                "token_uri"
            ),
        ]
        for (json, field) in cases {
            do throws(CloudKMSError) {
                _ = try GoogleServiceAccount(json: Array(json.utf8), source: "sa.json")
                Issue.record("\(json) was accepted")
            } catch {
                #expect(error.description.contains(field), "\(error)")
                #expect(!error.description.contains("AAAA"))
            }
        }
        #expect(throws: CloudKMSError.self) { try GCPKMSClient.endpoint(option: "http://kms.example.com") }
        #expect(try GCPKMSClient.endpoint(option: nil, environment: [:]) == GCPKMSClient.defaultEndpoint)
    }
}
