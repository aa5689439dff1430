/// The version of this SignerKit package: the newest entry of CHANGELOG.md, shown by `signerkit --version` and
/// the signer service's `/healthz`. Versions follow semantic versioning as docs/VERSIONING.md describes it
/// (before 1.0.0 a minor release may change public API; the CHANGELOG says how).
public enum SignerKitVersion {
    /// `0.1.0`.
    public static let current = "0.1.0"
}
