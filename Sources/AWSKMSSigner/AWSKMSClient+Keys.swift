import EthereumPrimitives
import Foundation

/// A key's public half as `GetPublicKey` answers it.
public struct AWSKMSPublicKey: Sendable, Equatable {
    /// The key's ARN (KMS answers the ARN whatever form of id was asked for).
    public let keyARN: String
    /// `ECC_SECG_P256K1`, `ECC_NIST_P256`, `RSA_2048`, …
    public let keySpec: String
    /// `SIGN_VERIFY`, `ENCRYPT_DECRYPT`, …
    public let keyUsage: String
    /// The DER `SubjectPublicKeyInfo`.
    public let subjectPublicKeyInfo: [UInt8]
}

/// One alias as `ListAliases` answers it.
public struct AWSKMSAlias: Sendable, Equatable {
    /// `alias/NAME`.
    public let name: String
    /// The id of the key it points to; `nil` for an alias without a key (AWS-managed aliases not yet used).
    public let targetKeyID: String?
}

extension AWSKMSClient {
    /// `GetPublicKey` for `keyID` (a key id, key ARN or `alias/NAME`).
    ///
    /// - Throws: ``AWSKMSError``; ``AWSKMSError/malformedResponse(keyID:field:reason:)`` when a field is missing.
    public func publicKey(keyID: String) async throws(AWSKMSError) -> AWSKMSPublicKey {
        let answer = try await call("GetPublicKey", ["KeyId": .string(keyID)], keyID: keyID)
        let der = try Self.base64(answer, "PublicKey", keyID: keyID)
        return AWSKMSPublicKey(
            keyARN: try Self.string(answer, "KeyId", keyID: keyID),
            keySpec: answer["KeySpec"]?.stringValue ?? answer["CustomerMasterKeySpec"]?.stringValue ?? "unknown",
            keyUsage: answer["KeyUsage"]?.stringValue ?? "unknown", subjectPublicKeyInfo: der)
    }

    /// `Sign` of the 32-byte `digest` with `MessageType=DIGEST` and `ECDSA_SHA_256` (KMS signs the digest as
    /// given, without hashing it again); returns the DER signature. Errors name the key `naming` (the key as
    /// the user gave it), else `keyID`.
    public func signDigest(
        _ digest: Digest32, keyID: String, naming name: String? = nil, deadline: ContinuousClock.Instant? = nil
    ) async throws(AWSKMSError) -> [UInt8] {
        let request: JSONValue = [
            "KeyId": .string(keyID), "Message": .string(Data(digest.bytes).base64EncodedString()),
            "MessageType": "DIGEST", "SigningAlgorithm": "ECDSA_SHA_256",
        ]
        let answer = try await call("Sign", request, keyID: name ?? keyID, deadline: deadline)
        return try Self.base64(answer, "Signature", keyID: name ?? keyID)
    }

    /// Every key of the account in the region (`ListKeys`, all pages): their ids.
    public func keyIDs() async throws(AWSKMSError) -> [String] {
        try await pages("ListKeys", [:], list: "Keys", keyID: nil) { item throws(AWSKMSError) in
            try Self.string(item, "KeyId", keyID: nil)
        }
    }

    /// Every alias of the account in the region (`ListAliases`, all pages).
    public func aliases() async throws(AWSKMSError) -> [AWSKMSAlias] {
        try await pages("ListAliases", [:], list: "Aliases", keyID: nil) { item throws(AWSKMSError) in
            AWSKMSAlias(
                name: try Self.string(item, "AliasName", keyID: nil), targetKeyID: item["TargetKeyId"]?.stringValue)
        }
    }

    /// The tags of `keyID` (`ListResourceTags`, all pages), as key → value.
    public func tags(keyID: String) async throws(AWSKMSError) -> [String: String] {
        let pairs = try await pages("ListResourceTags", ["KeyId": .string(keyID)], list: "Tags", keyID: keyID) {
            item throws(AWSKMSError) in
            (try Self.string(item, "TagKey", keyID: keyID), item["TagValue"]?.stringValue ?? "")
        }
        return Dictionary(pairs, uniquingKeysWith: { _, last in last })
    }

    /// Calls a list operation page by page (`Marker` / `NextMarker` while `Truncated`), reading each item of
    /// the answer's array `list`.
    private func pages<Item>(
        _ operation: String, _ request: JSONObject, list: String, keyID: String?,
        item read: (JSONValue) throws(AWSKMSError) -> Item
    ) async throws(AWSKMSError) -> [Item] {
        var items: [Item] = []
        var marker: String?
        // A bound against a service that never stops paging (10,000 pages of at least one item each).
        for _ in 0..<10_000 {
            var page = request
            if let marker { page.members.append(.init(key: "Marker", value: .string(marker))) }
            let answer = try await call(operation, .object(page), keyID: keyID)
            guard let entries = answer[list]?.arrayValue else {
                throw .malformedResponse(keyID: keyID, field: list, reason: "missing or not an array")
            }
            for entry in entries { items.append(try read(entry)) }
            guard answer["Truncated"] == .bool(true) else { return items }
            guard let next = answer["NextMarker"]?.stringValue, !next.isEmpty, next != marker else {
                throw .malformedResponse(keyID: keyID, field: "NextMarker", reason: "truncated without a new marker")
            }
            marker = next
        }
        throw .malformedResponse(keyID: keyID, field: "NextMarker", reason: "more than 10,000 pages")
    }

    /// The string member `field` of `answer`.
    static func string(_ answer: JSONValue, _ field: String, keyID: String?) throws(AWSKMSError) -> String {
        guard let value = answer[field]?.stringValue, !value.isEmpty else {
            throw .malformedResponse(keyID: keyID, field: field, reason: "missing or not a string")
        }
        return value
    }

    /// The base64 member `field` of `answer`, decoded.
    static func base64(_ answer: JSONValue, _ field: String, keyID: String?) throws(AWSKMSError) -> [UInt8] {
        guard let data = Data(base64Encoded: try string(answer, field, keyID: keyID)) else {
            throw .malformedResponse(keyID: keyID, field: field, reason: "not base64")
        }
        return [UInt8](data)
    }
}
