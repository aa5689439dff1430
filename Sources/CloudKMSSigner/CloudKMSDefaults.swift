import SignerKitHTTP

/// Defaults shared by the Google Cloud KMS and Azure Key Vault clients.
public enum CloudKMSDefaults {
    /// The default retries: 6, from 50 ms doubling to at most 2 s, with half of each wait taken at random (as
    /// for AWS KMS).
    public static let retryPolicy = HTTPRetryPolicy(
        maxRetries: 6, baseDelay: .milliseconds(50), maxDelay: .seconds(2), jitter: 0.5)
}
