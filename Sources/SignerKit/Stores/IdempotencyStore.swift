import EthereumPrimitives

/// Where the service keeps the answers of requests sent with an idempotency key (the `Idempotency-Key`
/// header, or `idempotencyKey` in `signerkit_signActions`), so that a retried request — the same client, key
/// and body — gets the first answer back instead of being signed again: across restarts with SQLite, across
/// instances with one PostgreSQL database.
///
/// A key is bound to the hash of the first body it came with, for good: another body under it is a
/// ``IdempotencyClaim/mismatch`` whatever became of the first request (a key reused after a failure never pays
/// for, or is answered with, someone else's request). A key is *claimed* while its request runs, then
/// *completed* with the answer, or *released* when the
/// request did not succeed (a retry runs again; the transaction journal re-sends, never re-signs, a
/// transaction whose broadcast had an unknown outcome). A claim whose holder died lapses after its lease.
/// Implementations must be safe for concurrent use, from several processes when they share storage.
public protocol IdempotencyStore: Sendable {
    /// Claims `key` of `client` for a request whose body hashes to `requestHash` (Keccak-256), for `lease`.
    func claim(client: String, key: String, requestHash: Bytes32, lease: Duration)
        async throws(IdempotencyStoreError) -> IdempotencyClaim

    /// Stores `answer` (the response body) for a key this caller claimed; later claims get it back.
    func complete(client: String, key: String, answer: [UInt8]) async throws(IdempotencyStoreError)

    /// Ends a claim without an answer, so the key may be claimed again at once with the same body.
    func release(client: String, key: String) async throws(IdempotencyStoreError)
}

/// What claiming an idempotency key found.
public enum IdempotencyClaim: Sendable, Equatable {
    /// The key is new (or its last claim lapsed or was released): run the request, then complete or release.
    case claimed
    /// The key's request already completed with this answer (the response body): send it again.
    case answered([UInt8])
    /// Another request with this key is running now.
    case inProgress
    /// The key was first used with a different body (answered, running, failed or lapsed).
    case mismatch
}

/// Why an idempotency store could not answer: the store and its cause (never a payload).
public struct IdempotencyStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store and the cause.
    public let message: String

    /// An error with `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
