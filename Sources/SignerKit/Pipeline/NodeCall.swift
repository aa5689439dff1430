/// Runs node calls in an unstructured task, so cancelling the calling task (the dispatcher cancels the rest
/// of a batch when one action fails) does not cancel a request mid-flight: a broadcast whose answer is cut
/// off by cancellation would be a broadcast with an unknown outcome. Node calls are bounded by the client's
/// own timeout; callers check for cancellation between them.
enum NodeCall {
    static func shielded<T: Sendable, E: Error>(
        _ body: @escaping @Sendable () async throws(E) -> T
    ) async throws(E) -> T {
        let outcome = await Task { () async -> Result<T, E> in
            do throws(E) { return .success(try await body()) } catch { return .failure(error) }
        }.value
        return try outcome.get()
    }
}
