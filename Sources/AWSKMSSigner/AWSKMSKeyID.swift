/// The forms a KMS key may be named in: a key id (`1234abcd-…`, `mrk-…`), a key ARN
/// (`arn:aws:kms:REGION:ACCOUNT:key/ID`), an alias name (`alias/NAME`) or an alias ARN.
enum AWSKMSKeyID {
    /// Throws unless `keyID` has one of the forms (at most 2048 characters, no control characters or spaces).
    static func check(_ keyID: String) throws(AWSKMSError) {
        guard !keyID.isEmpty, keyID.utf8.count <= 2048,
            keyID.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F })
        else { throw .invalidKeyID(keyID) }
        if keyID.hasPrefix("arn:") {
            let parts = keyID.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
            guard parts.count == 6, parts[2] == "kms", parts[5].hasPrefix("key/") || parts[5].hasPrefix("alias/")
            else { throw .invalidKeyID(keyID) }
        } else if keyID.hasPrefix("alias/") {
            guard keyID.count > "alias/".count else { throw .invalidKeyID(keyID) }
        } else {
            guard
                keyID.utf8.allSatisfy({
                    $0 == 0x2D || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                        || (0x61...0x7A).contains($0)
                })
            else { throw .invalidKeyID(keyID) }
        }
    }
}
