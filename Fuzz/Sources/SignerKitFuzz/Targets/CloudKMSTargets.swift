import CloudKMSSigner
import EthereumPrimitives

/// What names and authenticates a Google Cloud KMS or Azure Key Vault key: a service-account key file, a Key
/// Vault key id, a Cloud KMS key version name.
enum CloudKMSTargets {
    static let cloudKMSInputs = FuzzTarget(
        name: "cloud-kms-inputs",
        summary: "a service-account key file, an Azure key id and a Cloud KMS key name, parsed strictly: an id that "
            + "parses re-parses from its parts; errors are bounded and never quote the file's private key"
    ) { bytes in
        do throws(CloudKMSError) {
            let account = try GoogleServiceAccount(json: bytes, source: "fuzz.json")
            FuzzCheck.expect(!account.clientEmail.isEmpty, "a service account without client_email")
        } catch {
            FuzzCheck.boundedDescription(error)
            // Longer than any fixed text of a message: a key quoted back would show.
            if let key = (try? JSONValue(parsing: bytes))?["private_key"]?.stringValue, key.utf8.count >= 100 {
                FuzzCheck.expect(!error.description.contains(key), "an error quotes the private key")
            }
        }
        guard let text = FuzzCheck.text(bytes) else { return }
        do throws(CloudKMSError) {
            let id = try AzureKeyID(text)
            let again = try? AzureKeyID("\(id.vault)/keys/\(id.name)/\(id.version)")
            FuzzCheck.expect(
                again?.vault == id.vault && again?.name == id.name && again?.version == id.version,
                "a key id that does not re-parse from its parts")
        } catch {
            FuzzCheck.boundedDescription(error)
        }
        do throws(CloudKMSError) {
            try GCPKMSKeyName.check(text)
            FuzzCheck.expect(text.split(separator: "/").count == 10, "a key version name without ten segments")
        } catch {
            FuzzCheck.boundedDescription(error)
        }
    }
}
