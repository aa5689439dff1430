import Synchronization

/// Request ids (`X-Request-Id`, the logs and the audit trail) without a system call each: a random 64-bit
/// prefix drawn once per process, then a counter, in the 8-4-4-4-12 hex shape of a UUID. Unique within a
/// process; across instances the prefixes keep them apart (a clash needs two equal 64-bit draws).
enum RequestIDs {
    private static let prefix = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(0)

    /// The next id.
    static func next() -> String {
        let count = counter.add(1, ordering: .relaxed).newValue
        let digits = hex(prefix) + hex(count)
        var id = ""
        id.reserveCapacity(36)
        for (index, character) in digits.enumerated() {
            if [8, 12, 16, 20].contains(index) { id.append("-") }
            id.append(character)
        }
        return id
    }

    private static func hex(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
