import Synchronization

/// Request ids (`X-Request-Id`, the logs and the audit trail) without a system call each: a random 64-bit
/// prefix drawn once per process, then a counter, in the 8-4-4-4-12 hex shape of a UUID. Unique within a
/// process; across instances the prefixes keep them apart (a clash needs two equal 64-bit draws).
enum RequestIDs {
    private static let prefix = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(0)
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The next id: 32 hex digits (the prefix, then the count) grouped 8-4-4-4-12.
    static func next() -> String {
        let count = counter.add(1, ordering: .relaxed).newValue
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var position = 0
            for nibble in 0..<32 {
                if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                    buffer[position] = UInt8(ascii: "-")
                    position += 1
                }
                let word = nibble < 16 ? prefix : count
                buffer[position] = digits[Int(truncatingIfNeeded: word >> UInt64(60 - 4 * (nibble % 16))) & 15]
                position += 1
            }
            return position
        }
    }
}
