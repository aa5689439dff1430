import EthereumPrimitives

/// One P-256 signing key of a JWKS (RFC 7517/7518): `kty` `EC`, `crv` `P-256`, `x` and `y` (32 bytes
/// each, base64url). Keys of other types, curves or uses are skipped by ``JSONWebKeySet``.
public struct JSONWebKey: Sendable, Hashable {
    /// The key id (`kid`), when given.
    public let keyID: String?
    /// The public key, checked to lie on P-256.
    public let publicKey: P256PublicKey

    /// A key with an id.
    public init(keyID: String?, publicKey: P256PublicKey) {
        self.keyID = keyID
        self.publicKey = publicKey
    }

    /// The key as a JWK object: `kty`, `crv`, `x`, `y`, `use` `sig`, `alg` `ES256` and `kid`.
    public var json: JSONValue {
        var object = JSONObject([
            "kty": .string("EC"), "crv": .string("P-256"), "x": .string(Base64URL.encode(publicKey.x)),
            "y": .string(Base64URL.encode(publicKey.y)), "use": .string("sig"), "alg": .string("ES256"),
        ])
        if let keyID { object["kid"] = .string(keyID) }
        return .object(object)
    }
}

/// A JSON Web Key Set: `{"keys":[…]}` reduced to its ES256 keys.
///
/// A key that is EC P-256 for signatures (no `use`, or `use` `sig`; no `alg`, or `alg` `ES256`) must be
/// well formed, else the whole set is refused; keys of other types (RSA, Ed25519, encryption keys)
/// are skipped.
public struct JSONWebKeySet: Sendable, Hashable {
    /// The ES256 keys, in document order.
    public let keys: [JSONWebKey]

    /// A set of keys.
    public init(keys: [JSONWebKey]) { self.keys = keys }

    /// Parses JWKS JSON bytes.
    ///
    /// - Throws: ``IDTokenError/keySet(_:)`` naming the key index and field.
    public init(json bytes: [UInt8]) throws(IDTokenError) {
        let value: JSONValue
        do { value = try JSONValue(parsing: bytes) } catch { throw .keySet("key set is not JSON: \(error)") }
        guard let list = value["keys"]?.arrayValue else { throw .keySet("key set has no \"keys\" array") }
        var keys: [JSONWebKey] = []
        for (index, entry) in list.enumerated() {
            guard let object = entry.objectValue else { throw .keySet("keys[\(index)] is not an object") }
            guard object["kty"]?.stringValue == "EC", object["crv"]?.stringValue == "P-256" else { continue }
            if let use = object["use"], use.stringValue != "sig" { continue }
            if let alg = object["alg"], alg.stringValue != "ES256" { continue }
            var keyID: String?
            if let kid = object["kid"] {
                guard let text = kid.stringValue else { throw .keySet("keys[\(index)].kid is not a string") }
                keyID = text
            }
            func coordinate(_ name: String) throws(IDTokenError) -> [UInt8] {
                guard let text = object[name]?.stringValue, let bytes = Base64URL.decode(text), bytes.count == 32
                else { throw .keySet("keys[\(index)].\(name) is not 32 bytes of base64url") }
                return bytes
            }
            let x = try coordinate("x")
            let y = try coordinate("y")
            guard let key = P256PublicKey(x: x, y: y) else {
                throw .keySet("keys[\(index)] is not a point on P-256")
            }
            keys.append(JSONWebKey(keyID: keyID, publicKey: key))
        }
        self.keys = keys
    }

    /// The keys a token with `kid` may be checked against: those with that id; without a `kid`, every
    /// key when the set has exactly one.
    public func candidates(for kid: String?) -> [JSONWebKey] {
        guard let kid else { return keys.count == 1 ? keys : [] }
        return keys.filter { $0.keyID == kid }
    }

    /// `{"keys":[…]}`.
    public var json: JSONValue { .object(JSONObject(["keys": .array(keys.map(\.json))])) }
}
