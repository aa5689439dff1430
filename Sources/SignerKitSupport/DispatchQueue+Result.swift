import Dispatch

extension DispatchQueue {
    /// Runs `body` on this queue and returns its result to the awaiting task (blocking work, such as file
    /// locks or SQLite calls, stays off the cooperative pool).
    package func perform<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            self.async {
                do throws(E) { continuation.resume(returning: .success(try body())) } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
