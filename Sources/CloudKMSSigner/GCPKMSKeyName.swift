/// A Cloud KMS key version's resource name:
/// `projects/P/locations/L/keyRings/R/cryptoKeys/K/cryptoKeyVersions/V`.
package enum GCPKMSKeyName {
    /// The collections of the name, in order, with the field each id is (for errors).
    private static let collections = [
        ("projects", "project"), ("locations", "location"), ("keyRings", "keyRing"), ("cryptoKeys", "cryptoKey"),
        ("cryptoKeyVersions", "cryptoKeyVersion"),
    ]

    /// Throws unless `name` is a key version's name: the five collections in order, each id non-empty and of
    /// the characters Cloud KMS allows (letters, digits, `-`, `_`; a project id may also hold `.` and `:`;
    /// a version is a number).
    ///
    /// - Throws: ``CloudKMSError/invalidKeyName(_:name:field:reason:)`` naming the first field at fault.
    package static func check(_ name: String) throws(CloudKMSError) {
        let fail = { (field: String, reason: String) -> CloudKMSError in
            .invalidKeyName(.googleCloudKMS, name: name, field: field, reason: reason)
        }
        guard name.utf8.count <= 1024 else { throw fail("name", "longer than 1024 characters") }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        for (index, (collection, field)) in collections.enumerated() {
            guard parts.count > 2 * index, parts[2 * index] == collection else {
                throw fail(collection, "expected \"\(collection)/\" at segment \(2 * index + 1)")
            }
            guard parts.count > 2 * index + 1, !parts[2 * index + 1].isEmpty else { throw fail(field, "empty") }
            let id = parts[2 * index + 1].utf8
            let allowed: (UInt8) -> Bool =
                switch field {
                case "cryptoKeyVersion": { (0x30...0x39).contains($0) }
                case "project": { isIDByte($0) || $0 == 0x2E || $0 == 0x3A }
                default: { isIDByte($0) }
                }
            guard id.count <= 63 || field == "project", id.allSatisfy(allowed) else {
                throw fail(field, field == "cryptoKeyVersion" ? "not a number" : "contains characters not allowed")
            }
        }
        guard parts.count == 2 * collections.count else {
            throw fail("name", "unexpected segments after cryptoKeyVersions/ID")
        }
    }

    /// Letters, digits, `-` and `_`.
    private static func isIDByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D
            || byte == 0x5F
    }
}
