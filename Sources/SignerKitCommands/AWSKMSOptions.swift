import AWSKMSSigner
import EthereumPrimitives
import SignerKit

/// The AWS KMS key source of the signing commands: `--aws-kms-key-id ID` (key id, key ARN or `alias/NAME`)
/// with `--aws-region R` and `--aws-endpoint-url URL` (else `AWS_REGION` / `AWS_DEFAULT_REGION` and
/// `AWS_ENDPOINT_URL_KMS` / `AWS_ENDPOINT_URL`); credentials from the standard variables or the shared
/// credentials file (docs/KMS.md). Never a credential on the command line.
enum AWSKMSOptions {
    /// `--aws-kms-key-id ID`.
    static let keyID = FlagSpec.option(
        "--aws-kms-key-id", value: "ID", help: "AWS KMS key (ECC_SECG_P256K1): key id, key ARN or alias/NAME")
    /// `--aws-region R`.
    static let region = FlagSpec.option(
        "--aws-region", value: "R", help: "AWS region of the KMS key (else $AWS_REGION, $AWS_DEFAULT_REGION)")
    /// `--aws-endpoint-url URL`.
    static let endpointURL = FlagSpec.option(
        "--aws-endpoint-url", value: "URL",
        help: "KMS endpoint (else $AWS_ENDPOINT_URL_KMS, $AWS_ENDPOINT_URL; plain http only to loopback)")

    /// The three flags.
    static let flags = [keyID, region, endpointURL]

    /// The signer for the key `--aws-kms-key-id` names: credentials, region and endpoint resolved from the
    /// flags and `io`'s environment, then one `GetPublicKey`.
    ///
    /// - Throws: 65 with one message naming the key id (and never a credential) when the key cannot be used.
    static func signer(_ options: ParsedOptions, io: any CommandIO) async throws(CommandFailure) -> AWSKMSKeySigner {
        guard let id = options.value(keyID.name) else {
            throw .usage("missing \(keyID.name)", command: options.commandPath)
        }
        let environment = io.environment
        do throws(AWSKMSError) {
            let endpoint = try AWSKMSEndpoint.resolve(
                region: options.value(region.name), endpointURL: options.value(endpointURL.name),
                environment: environment)
            let client = AWSKMSClient(
                endpoint: endpoint, credentials: try AWSCredentials.resolve(environment: environment))
            return try await AWSKMSKeySigner.load(keyID: id, client: client)
        } catch {
            throw .invalidInput(message(error, keyID: id))
        }
    }

    /// The error's text, naming the key id even when the error itself does not (missing region, credentials).
    static func message(_ error: AWSKMSError, keyID: String) -> String {
        error.keyID != nil ? error.description : "AWS KMS key \(TextSafety.displayArgument(keyID)): \(error)"
    }
}
