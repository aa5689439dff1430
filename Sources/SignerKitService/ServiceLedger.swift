import Foundation
import SignerKit

/// The audit ledger of the service (`ledger`, beside `auditLog`): `{"checkpointKeyFile": P, "checkpointEvery": N,
/// "checkpointIntervalSeconds"?: T, "origin"?: O}`, or `"checkpointKey": {…}` with any key source `keys` takes (a PKCS#11 token or a cloud KMS key
/// in production) instead of the key file.
///
/// The ledger is kept where the audit records are: in the `auditLog` file (its checkpoints as lines of the same
/// file), in the PostgreSQL store beside its audit rows, and, with the SQLite store and no `auditLog`, in the
/// SQLite file. docs/AUDIT.md describes the format.
public struct ServiceLedger: Sendable, Equatable {
    /// The key that signs checkpoints.
    public var checkpointKey: ServiceKeySource
    /// A checkpoint is signed after this many records (1 ... 1,000,000; default 1,000).
    public var checkpointEvery: Int
    /// A checkpoint is also signed once this long has passed since the last while records came in
    /// (`checkpointIntervalSeconds`, 1 ... 86,400; `nil`: by count only).
    public var checkpointInterval: Duration?
    /// The log's origin: the checkpoints' first line and the key's name in their signature (default
    /// `signerkit/audit`; no spaces, `+` or control characters).
    public var origin: String

    init(_ json: ConfigurationReader, folder: String) throws(ServiceConfigurationError) {
        try json.object(allowing: [
            "checkpointKeyFile", "checkpointKey", "checkpointEvery", "checkpointIntervalSeconds", "origin",
        ])
        switch (json["checkpointKeyFile"].ifPresent, json["checkpointKey"].ifPresent) {
        case (let file?, nil): checkpointKey = .keyFile(try file.filePath(relativeTo: folder))
        case (nil, let source?):
            checkpointKey = try ServiceKeySource(source, folder: folder)
            if case .remoteSigner = checkpointKey {
                throw json["checkpointKey"].fail("a remote signer cannot sign checkpoints: give a key")
            }
            if case .awsKMS(.keyID, _, _) = checkpointKey {
            } else if case .awsKMS = checkpointKey {
                throw json["checkpointKey"].fail("name one AWS KMS key (keyId), not a tag or alias prefix")
            }
        case (nil, nil): throw json.fail("give checkpointKeyFile or checkpointKey")
        case (_?, _?): throw json.fail("give either checkpointKeyFile or checkpointKey, not both")
        }
        checkpointEvery = try json["checkpointEvery"].ifPresent?.integer(in: 1...1_000_000) ?? 1_000
        checkpointInterval = try json["checkpointIntervalSeconds"].ifPresent.map {
            (value) throws(ServiceConfigurationError) in .seconds(try value.integer(in: 1...86_400))
        }
        origin = try json["origin"].ifPresent?.string() ?? "signerkit/audit"
        guard !origin.isEmpty,
            !origin.unicodeScalars.contains(where: { $0.value <= 0x20 || $0 == "+" || $0.value == 0x7F })
        else {
            throw json["origin"].fail("must be non-empty with no space, + or control character")
        }
    }
}
