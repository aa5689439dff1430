import CPKCS11
import EthereumPrimitives
import Secp256k1
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open token: login, key management and signer creation.
///
/// The token keeps one read-write session open for its whole lifetime. Besides serving key
/// management, it anchors the login: Cryptoki logs the application out of a token when its last
/// session closes, so signers keep their token alive. Key-management calls run on that session,
/// one at a time across the whole module (SoftHSM2 cannot create objects concurrently); signing
/// uses the signers' own session pools and runs in parallel.
public final class PKCS11Token: Sendable {
    /// The module the token belongs to.
    public let module: PKCS11Module

    /// The slot holding the token.
    public let slotID: UInt

    /// The token's `C_GetTokenInfo` when it was opened.
    public let info: PKCS11TokenInfo

    /// The token label.
    public var label: String { info.label }

    /// The token serial number.
    public var serialNumber: String { info.serialNumber }

    /// The anchor session. PKCS#11 sessions must not be used by two threads at once, so it is
    /// only touched under this lock.
    private let anchor: Mutex<CK_SESSION_HANDLE>

    /// Opens the anchor session on `slot`: read-write, or read-only on a write-protected token.
    init(module: PKCS11Module, slot: CK_SLOT_ID) throws(PKCS11Error) {
        self.module = module
        slotID = UInt(slot)
        info = try module.tokenInfo(slot)
        let session: CK_SESSION_HANDLE
        do throws(PKCS11Error) {
            session = try module.openSession(slot: slot, readWrite: true)
        } catch  where error.returnCode == PKCS11ReturnCode(rawValue: CK_RV(CKR_TOKEN_WRITE_PROTECTED)) {
            session = try module.openSession(slot: slot, readWrite: false)
        }
        anchor = Mutex(session)
        module.openTokens.add(1, ordering: .acquiringAndReleasing)
    }

    deinit {
        module.closeSession(anchor.withLock { $0 })
        module.openTokens.subtract(1, ordering: .acquiringAndReleasing)
    }

    // MARK: login

    /// Whether the application is logged in to this token as the user (one login covers every
    /// session of the process on the token).
    public var isLoggedIn: Bool {
        get throws(PKCS11Error) {
            try withAnchor(retry: true) { (session) throws(PKCS11Error) in
                var info = CK_SESSION_INFO()
                try module.check(module.functions.getSessionInfo(session, &info), "C_GetSessionInfo")
                return info.state == CK_STATE(CKS_RO_USER_FUNCTIONS) || info.state == CK_STATE(CKS_RW_USER_FUNCTIONS)
            }
        }
    }

    /// Logs in as the user with the PIN from `source`.
    ///
    /// Exactly one `C_Login` is attempted: a wrong PIN is reported, never retried (real HSMs
    /// lock the PIN after a few failures). The PIN is read into secure memory and wiped after the
    /// attempt, whatever its outcome; it appears in no description or error. When the process is
    /// already logged in to the token, nothing is read (no prompt is shown) and a
    /// ``PINSource/secure(_:)`` buffer is wiped unused.
    ///
    /// - Throws: ``PKCS11Error/pinUnavailable(_:)`` when the source cannot supply a PIN,
    ///   `C_Login: CKR_PIN_INCORRECT` for a wrong PIN, `C_Login: CKR_PIN_LOCKED` for a locked one.
    public func login(pin source: PINSource) throws(PKCS11Error) {
        if try isLoggedIn {
            if case .secure(let bytes) = source { bytes.wipe() }
            return
        }
        let pin = try source.read()
        defer { pin?.wipe() }
        let rv: CK_RV = try withAnchor(retry: false) { session in
            guard let pin else { return module.functions.login(session, CK_USER_TYPE(CKU_USER), nil, 0) }
            return pin.withUnsafeBytes { bytes in
                // C_Login does not write through the pointer; the type is just not const.
                let pointer = bytes.baseAddress.map {
                    UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: CK_UTF8CHAR.self))
                }
                return module.functions.login(session, CK_USER_TYPE(CKU_USER), pointer, CK_ULONG(bytes.count))
            }
        }
        if rv == CKR_USER_ALREADY_LOGGED_IN { return }
        try module.check(rv, "C_Login")
    }

    // MARK: keys

    /// Generates a secp256k1 key pair on the token (`CKM_EC_KEY_PAIR_GEN`).
    ///
    /// The private key is a token object that is private, sensitive, never extractable and may
    /// only sign; the public key is a token object that may verify. Both get `label` and `id`
    /// (16 random bytes when `id` is `nil`).
    ///
    /// - Throws: ``PKCS11Error/keyExists(_:)`` if a private key already has the label or id (also
    ///   when another process creates one at the same moment: see `createUnique`); the failing call
    ///   otherwise (`CKR_USER_NOT_LOGGED_IN` before ``login(pin:)``).
    public func generateKeyPair(label: String, id: [UInt8]? = nil) throws(PKCS11Error) -> PKCS11KeyInfo {
        let info = try generateKeyPair(label: label, id: id, ecParameters: ECEncoding.secp256k1Parameters)
        guard info.publicKey != nil else { throw .invalidECPoint(key: info.name) }
        return info
    }

    /// Generates an EC key pair on any curve; internal so tests can make keys on other curves.
    func generateKeyPair(label: String, id: [UInt8]?, ecParameters: [UInt8]) throws(PKCS11Error) -> PKCS11KeyInfo {
        let id = try Self.checkedID(id, label: label)
        return try withAnchor(retry: true) { (session) throws(PKCS11Error) in
            try createUnique(session: session, label: label, id: id) { () throws(PKCS11Error) in
                let publicTemplate = AttributeTemplate()
                    .add(CK_ATTRIBUTE_TYPE(CKA_TOKEN), bool: true)
                    .add(CK_ATTRIBUTE_TYPE(CKA_PRIVATE), bool: false)
                    .add(CK_ATTRIBUTE_TYPE(CKA_VERIFY), bool: true)
                    .add(CK_ATTRIBUTE_TYPE(CKA_LABEL), string: label)
                    .add(CK_ATTRIBUTE_TYPE(CKA_ID), bytes: id)
                    .add(CK_ATTRIBUTE_TYPE(CKA_EC_PARAMS), bytes: ecParameters)
                let privateTemplate = Self.privateKeyTemplate(label: label, id: id)
                var mechanism = CK_MECHANISM(
                    mechanism: CK_MECHANISM_TYPE(CKM_EC_KEY_PAIR_GEN), pParameter: nil, ulParameterLen: 0)
                var publicHandle = CK_OBJECT_HANDLE(CK_INVALID_HANDLE)
                var privateHandle = CK_OBJECT_HANDLE(CK_INVALID_HANDLE)
                let rv = publicTemplate.withAttributes { publicAttributes, publicCount in
                    privateTemplate.withAttributes { privateAttributes, privateCount in
                        module.functions.generateKeyPair(
                            session, &mechanism, publicAttributes, publicCount, privateAttributes, privateCount,
                            &publicHandle, &privateHandle)
                    }
                }
                try module.check(rv, "C_GenerateKeyPair")
                return (privateHandle, [publicHandle])
            }
        }
    }

    /// Stores an existing secp256k1 private key on the token, with a matching public-key object
    /// (`CKA_EC_POINT` DER-wrapped) so the key can be found and listed like a generated one.
    ///
    /// The secret goes from the key's secure memory to `C_CreateObject` without a copy. The
    /// token object is sensitive and not extractable; the key cannot be read back. If the
    /// public-key object cannot be created, the private object is destroyed again.
    ///
    /// - Throws: ``PKCS11Error/keyExists(_:)`` if a private key already has the label or id (also
    ///   when another process creates one at the same moment); the failing call otherwise.
    public func importPrivateKey(_ key: PrivateKey, label: String, id: [UInt8]? = nil) throws(PKCS11Error)
        -> PKCS11KeyInfo
    {
        let id = try Self.checkedID(id, label: label)
        return try withAnchor(retry: true) { (session) throws(PKCS11Error) in
            try createUnique(session: session, label: label, id: id) { () throws(PKCS11Error) in
                let privateTemplate = Self.privateKeyTemplate(label: label, id: id)
                    .add(CK_ATTRIBUTE_TYPE(CKA_CLASS), ulong: CK_ULONG(CKO_PRIVATE_KEY))
                    .add(CK_ATTRIBUTE_TYPE(CKA_KEY_TYPE), ulong: CK_ULONG(CKK_EC))
                    .add(CK_ATTRIBUTE_TYPE(CKA_EC_PARAMS), bytes: ECEncoding.secp256k1Parameters)
                var privateHandle = CK_OBJECT_HANDLE(CK_INVALID_HANDLE)
                let rv: CK_RV = key.withUnsafeSecretBytes { secret in
                    privateTemplate.addBorrowed(CK_ATTRIBUTE_TYPE(CKA_VALUE), secret)
                    return privateTemplate.withAttributes {
                        module.functions.createObject(session, $0, $1, &privateHandle)
                    }
                }
                try module.check(rv, "C_CreateObject")

                let publicTemplate = AttributeTemplate()
                    .add(CK_ATTRIBUTE_TYPE(CKA_CLASS), ulong: CK_ULONG(CKO_PUBLIC_KEY))
                    .add(CK_ATTRIBUTE_TYPE(CKA_KEY_TYPE), ulong: CK_ULONG(CKK_EC))
                    .add(CK_ATTRIBUTE_TYPE(CKA_TOKEN), bool: true)
                    .add(CK_ATTRIBUTE_TYPE(CKA_PRIVATE), bool: false)
                    .add(CK_ATTRIBUTE_TYPE(CKA_VERIFY), bool: true)
                    .add(CK_ATTRIBUTE_TYPE(CKA_LABEL), string: label)
                    .add(CK_ATTRIBUTE_TYPE(CKA_ID), bytes: id)
                    .add(CK_ATTRIBUTE_TYPE(CKA_EC_PARAMS), bytes: ECEncoding.secp256k1Parameters)
                    .add(CK_ATTRIBUTE_TYPE(CKA_EC_POINT), bytes: ECEncoding.wrapPoint(key.publicKey))
                var publicHandle = CK_OBJECT_HANDLE(CK_INVALID_HANDLE)
                let publicRV = publicTemplate.withAttributes {
                    module.functions.createObject(session, $0, $1, &publicHandle)
                }
                if publicRV != CKR_OK {
                    _ = module.functions.destroyObject(session, privateHandle)
                    try module.check(publicRV, "C_CreateObject")
                }
                return (privateHandle, [publicHandle])
            }
        }
    }

    /// Every private key on the token (visible after login), with its public key and address
    /// when it is a secp256k1 key.
    public func listKeys() throws(PKCS11Error) -> [PKCS11KeyInfo] {
        try withAnchor(retry: true) { (session) throws(PKCS11Error) in
            let template = AttributeTemplate().add(CK_ATTRIBUTE_TYPE(CKA_CLASS), ulong: CK_ULONG(CKO_PRIVATE_KEY))
            var keys: [PKCS11KeyInfo] = []
            for handle in try module.findObjects(session: session, template) {
                if let info = try keyInfoIfPresent(session: session, privateKey: handle) { keys.append(info) }
            }
            return keys
        }
    }

    /// The secp256k1 key `locator` names.
    ///
    /// - Throws: ``PKCS11Error/keyNotFound(_:)``, ``PKCS11Error/ambiguousKey(_:count:)``,
    ///   ``PKCS11Error/notSecp256k1(key:curve:)`` for a key on another curve (or not EC), and
    ///   ``PKCS11Error/invalidECPoint(key:)`` when its public point is missing or invalid.
    public func key(_ locator: PKCS11KeyLocator) throws(PKCS11Error) -> PKCS11KeyInfo {
        try withAnchor(retry: true) { (session) throws(PKCS11Error) in
            try resolve(session: session, locator).info
        }
    }

    /// Destroys the private key `locator` names and the public-key objects sharing its id (or,
    /// without an id, its label).
    public func deleteKey(_ locator: PKCS11KeyLocator) throws(PKCS11Error) {
        try withAnchor(retry: true) { (session) throws(PKCS11Error) in
            let handle = try uniquePrivateKey(session: session, locator)
            let info = try keyInfo(session: session, privateKey: handle)
            for publicKey in try publicKeyObjects(session: session, label: info.label, id: info.id) {
                try module.check(module.functions.destroyObject(session, publicKey), "C_DestroyObject")
            }
            try module.check(module.functions.destroyObject(session, handle), "C_DestroyObject")
        }
    }

    /// A signer for the secp256k1 key `locator` names, with a pool of up to `maximumSessions`
    /// sessions (default: the number of active processors).
    ///
    /// - Throws: as ``key(_:)``; ``PKCS11Error/invalidArgument(_:)`` for fewer than 1 session.
    public func signer(
        for locator: PKCS11KeyLocator, maximumSessions: Int = PKCS11KeySigner.defaultMaximumSessions
    ) throws(PKCS11Error) -> PKCS11KeySigner {
        guard maximumSessions >= 1 else { throw .invalidArgument("a signer needs at least one session") }
        let (handle, info) = try withAnchor(retry: true) { (session) throws(PKCS11Error) in
            try resolve(session: session, locator)
        }
        guard let publicKey = info.publicKey else { throw .invalidECPoint(key: info.name) }
        return PKCS11KeySigner(
            token: self, key: info, publicKey: publicKey, handle: handle, maximumSessions: maximumSessions)
    }

    // MARK: internals (the caller holds `session` exclusively)

    /// Runs `body` on the anchor session under its lock and the module's object-management lock.
    /// With `retry`, a session lost to `CKR_SESSION_HANDLE_INVALID`, `CKR_SESSION_CLOSED` or
    /// `CKR_DEVICE_REMOVED` is reopened and `body` runs once more.
    func withAnchor<R: Sendable>(
        retry: Bool, _ body: (CK_SESSION_HANDLE) throws(PKCS11Error) -> R
    ) throws(PKCS11Error) -> R {
        try module.serializingObjectAccess { () throws(PKCS11Error) -> R in
            try onAnchor(retry: retry, body)
        }
    }

    /// ``withAnchor(retry:_:)`` without the module lock.
    private func onAnchor<R: Sendable>(
        retry: Bool, _ body: (CK_SESSION_HANDLE) throws(PKCS11Error) -> R
    ) throws(PKCS11Error) -> R {
        try anchor.withLock { (session: inout CK_SESSION_HANDLE) throws(PKCS11Error) -> R in
            do throws(PKCS11Error) {
                return try body(session)
            } catch  where retry && error.returnCode.map(SessionPool.lostSessionCodes.contains) == true {
                // The lost handle is not closed: its number may already name another session.
                let reopened: CK_SESSION_HANDLE
                do throws(PKCS11Error) {
                    reopened = try module.openSession(slot: CK_SLOT_ID(slotID), readWrite: true)
                } catch  where error.returnCode == PKCS11ReturnCode(rawValue: CK_RV(CKR_TOKEN_WRITE_PROTECTED)) {
                    reopened = try module.openSession(slot: CK_SLOT_ID(slotID), readWrite: false)
                }
                session = reopened
                return try body(session)
            }
        }
    }

    /// The private-key template shared by generation and import: a sensitive, non-extractable
    /// token object that may sign and do nothing else.
    private static func privateKeyTemplate(label: String, id: [UInt8]) -> AttributeTemplate {
        AttributeTemplate()
            .add(CK_ATTRIBUTE_TYPE(CKA_TOKEN), bool: true)
            .add(CK_ATTRIBUTE_TYPE(CKA_PRIVATE), bool: true)
            .add(CK_ATTRIBUTE_TYPE(CKA_SENSITIVE), bool: true)
            .add(CK_ATTRIBUTE_TYPE(CKA_EXTRACTABLE), bool: false)
            .add(CK_ATTRIBUTE_TYPE(CKA_SIGN), bool: true)
            .add(CK_ATTRIBUTE_TYPE(CKA_DECRYPT), bool: false)
            .add(CK_ATTRIBUTE_TYPE(CKA_DERIVE), bool: false)
            .add(CK_ATTRIBUTE_TYPE(CKA_UNWRAP), bool: false)
            .add(CK_ATTRIBUTE_TYPE(CKA_LABEL), string: label)
            .add(CK_ATTRIBUTE_TYPE(CKA_ID), bytes: id)
    }

    /// Validates a label and id, drawing 16 random id bytes when none is given.
    private static func checkedID(_ id: [UInt8]?, label: String) throws(PKCS11Error) -> [UInt8] {
        guard !label.isEmpty else { throw .invalidArgument("the key label is empty") }
        if let id {
            guard !id.isEmpty else { throw .invalidArgument("the key id is empty") }
            return id
        }
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Creates a key with `label` and `id` only if no other private key has either, also against
    /// other processes creating one at the same time (Cryptoki has no transactions):
    ///
    /// 1. refuse when a private key with the label or id exists;
    /// 2. `create` the objects (returning the new private key's and public keys' handles);
    /// 3. look again: when this key is not the only private key with its label and id, destroy the
    ///    objects just created (never another process's) and start over after a random pause of
    ///    10–60 ms, at most ``uniqueCreationAttempts`` times; step 1 then refuses if the other key
    ///    stayed.
    ///
    /// A key is reported created only when step 3 saw it alone; the other process then sees it in
    /// its own step 1 or 3, so at most one of two racing creations succeeds and no duplicate stays.
    /// (Both may back off at once; the random pause makes a repeat unlikely, and after the last
    /// attempt the creation fails with ``PKCS11Error/keyExists(_:)``.)
    private func createUnique(
        session: CK_SESSION_HANDLE, label: String, id: [UInt8],
        _ create: () throws(PKCS11Error) -> (privateKey: CK_OBJECT_HANDLE, publicKeys: [CK_OBJECT_HANDLE])
    ) throws(PKCS11Error) -> PKCS11KeyInfo {
        for attempt in 1...Self.uniqueCreationAttempts {
            try ensureUnique(session: session, label: label, id: id)
            let created = try create()
            let sameLabel = try privateKeys(session: session, .label(label))
            let sameID = try privateKeys(session: session, .id(id))
            if sameLabel == [created.privateKey], sameID == [created.privateKey] {
                return try keyInfo(session: session, privateKey: created.privateKey)
            }
            for handle in created.publicKeys + [created.privateKey]
            where try isObject(session: session, handle, label: label, id: id) {
                _ = module.functions.destroyObject(session, handle)
            }
            if attempt == Self.uniqueCreationAttempts { break }
            usleep(useconds_t(Int.random(in: 10_000...60_000)))
        }
        throw .keyExists(PKCS11KeyLocator.label(label).description)
    }

    /// Whether `handle` still names an object with `label` and `id`: checked before ``createUnique``
    /// destroys what it created, because with several processes writing one SoftHSM2 store a handle
    /// can come to name another process's object after the store is re-read.
    private func isObject(session: CK_SESSION_HANDLE, _ handle: CK_OBJECT_HANDLE, label: String, id: [UInt8])
        throws(PKCS11Error) -> Bool
    {
        do throws(PKCS11Error) {
            let objectLabel = try module.attribute(session: session, object: handle, CK_ATTRIBUTE_TYPE(CKA_LABEL))
            let objectID = try module.attribute(session: session, object: handle, CK_ATTRIBUTE_TYPE(CKA_ID))
            return objectLabel == Array(label.utf8) && objectID == id
        } catch  where error.returnCode == .objectHandleInvalid {
            return false
        }
    }

    /// Attempts of ``createUnique`` when racing creations back off.
    static let uniqueCreationAttempts = 3

    /// Throws ``PKCS11Error/keyExists(_:)`` when a private key has `label` or `id`.
    private func ensureUnique(session: CK_SESSION_HANDLE, label: String, id: [UInt8]) throws(PKCS11Error) {
        for locator in [PKCS11KeyLocator.label(label), .id(id)]
        where !(try privateKeys(session: session, locator)).isEmpty {
            throw .keyExists(locator.description)
        }
    }

    /// Handles of the private keys matching a label or id locator.
    func privateKeys(session: CK_SESSION_HANDLE, _ locator: PKCS11KeyLocator) throws(PKCS11Error) -> [CK_OBJECT_HANDLE]
    {
        let template = AttributeTemplate().add(CK_ATTRIBUTE_TYPE(CKA_CLASS), ulong: CK_ULONG(CKO_PRIVATE_KEY))
        switch locator {
        case .label(let label): template.add(CK_ATTRIBUTE_TYPE(CKA_LABEL), string: label)
        case .id(let id): template.add(CK_ATTRIBUTE_TYPE(CKA_ID), bytes: id)
        case .address(let address):
            let all = try module.findObjects(session: session, template)
            var matches: [CK_OBJECT_HANDLE] = []
            for handle in all where try keyInfoIfPresent(session: session, privateKey: handle)?.address == address {
                matches.append(handle)
            }
            return matches
        }
        return try module.findObjects(session: session, template)
    }

    /// The one private key matching `locator`.
    func uniquePrivateKey(session: CK_SESSION_HANDLE, _ locator: PKCS11KeyLocator) throws(PKCS11Error)
        -> CK_OBJECT_HANDLE
    {
        let handles = try privateKeys(session: session, locator)
        guard let first = handles.first else { throw .keyNotFound(locator.description) }
        guard handles.count == 1 else { throw .ambiguousKey(locator.description, count: handles.count) }
        return first
    }

    /// The one private key matching `locator`, checked to be a usable secp256k1 key.
    func resolve(session: CK_SESSION_HANDLE, _ locator: PKCS11KeyLocator) throws(PKCS11Error) -> (
        handle: CK_OBJECT_HANDLE, info: PKCS11KeyInfo
    ) {
        let handle = try uniquePrivateKey(session: session, locator)
        let info = try keyInfo(session: session, privateKey: handle)
        guard info.isSecp256k1 else { throw .notSecp256k1(key: info.name, curve: info.curve) }
        guard info.publicKey != nil else { throw .invalidECPoint(key: info.name) }
        return (handle, info)
    }

    /// Label, id, curve and public key of a private-key object. The point comes from the public
    /// key object with the same id (or label), or from the private object itself on tokens that
    /// store `CKA_EC_POINT` there.
    func keyInfo(session: CK_SESSION_HANDLE, privateKey handle: CK_OBJECT_HANDLE) throws(PKCS11Error) -> PKCS11KeyInfo {
        let label =
            try module.attribute(session: session, object: handle, CK_ATTRIBUTE_TYPE(CKA_LABEL))
            .map { String(decoding: $0, as: UTF8.self) } ?? ""
        let id = try module.attribute(session: session, object: handle, CK_ATTRIBUTE_TYPE(CKA_ID)) ?? []
        let keyType = try module.attribute(session: session, object: handle, CK_ATTRIBUTE_TYPE(CKA_KEY_TYPE))
            .flatMap(Self.ulong)
        guard keyType == CK_ULONG(CKK_EC) else {
            let curve = keyType.map { "not an EC key (CKA_KEY_TYPE 0x\(String($0, radix: 16)))" } ?? "not an EC key"
            return PKCS11KeyInfo(label: label, id: id, curve: curve, isSecp256k1: false, publicKey: nil)
        }
        let parameters = try module.attribute(session: session, object: handle, CK_ATTRIBUTE_TYPE(CKA_EC_PARAMS))
        let isSecp256k1 = parameters == ECEncoding.secp256k1Parameters
        var publicKey: PublicKey?
        if isSecp256k1 {
            let candidates = try publicKeyCandidates(session: session, label: label, id: id)
            if candidates.count == 1 {
                publicKey = candidates[0]
            } else if candidates.count > 1 {
                publicKey = pairedPublicKey(session: session, privateKey: handle, candidates: candidates)
            }
            if candidates.isEmpty,
                let point = try module.attribute(session: session, object: handle, CK_ATTRIBUTE_TYPE(CKA_EC_POINT))
            {
                publicKey = ECEncoding.parsePoint(point)
            }
        }
        return PKCS11KeyInfo(
            label: label, id: id, curve: ECEncoding.curveName(parameters), isSecp256k1: isSecp256k1,
            publicKey: publicKey)
    }

    /// ``keyInfo(session:privateKey:)``, or `nil` if the object was destroyed (by another
    /// application) since it was found.
    private func keyInfoIfPresent(session: CK_SESSION_HANDLE, privateKey handle: CK_OBJECT_HANDLE) throws(PKCS11Error)
        -> PKCS11KeyInfo?
    {
        do throws(PKCS11Error) {
            return try keyInfo(session: session, privateKey: handle)
        } catch  where error.returnCode == .objectHandleInvalid {
            return nil
        }
    }

    /// The distinct secp256k1 points of the public-key objects that may belong to a private key:
    /// those with its id and its label; if none, those with its id; if none, those with its label.
    private func publicKeyCandidates(session: CK_SESSION_HANDLE, label: String, id: [UInt8]) throws(PKCS11Error)
        -> [PublicKey]
    {
        var handles: [CK_OBJECT_HANDLE] = []
        if !id.isEmpty, !label.isEmpty {
            let template = AttributeTemplate().add(CK_ATTRIBUTE_TYPE(CKA_CLASS), ulong: CK_ULONG(CKO_PUBLIC_KEY))
                .add(CK_ATTRIBUTE_TYPE(CKA_ID), bytes: id).add(CK_ATTRIBUTE_TYPE(CKA_LABEL), string: label)
            handles = try module.findObjects(session: session, template)
        }
        if handles.isEmpty { handles = try publicKeyObjects(session: session, label: label, id: id) }
        var points: [PublicKey] = []
        for object in handles {
            guard let point = try module.attribute(session: session, object: object, CK_ATTRIBUTE_TYPE(CKA_EC_POINT)),
                let key = ECEncoding.parsePoint(point), !points.contains(key)
            else { continue }
            points.append(key)
        }
        return points
    }

    /// Which of several candidate public keys belongs to the private key `handle` (keys sharing a
    /// label and id, made by other tools or by racing processes): the private key signs a fixed
    /// digest and the candidate that verifies it is its own. `nil` when it cannot sign (not logged
    /// in, not a signing key) or none verifies, so no other key's address is ever reported.
    private func pairedPublicKey(
        session: CK_SESSION_HANDLE, privateKey handle: CK_OBJECT_HANDLE, candidates: [PublicKey]
    ) -> PublicKey? {
        let digest = Keccak256.hash(utf8: "SignerKit: which public key is this private key's")
        var mechanism = CK_MECHANISM(mechanism: CK_MECHANISM_TYPE(CKM_ECDSA), pParameter: nil, ulParameterLen: 0)
        guard module.functions.signInit(session, &mechanism, handle) == CKR_OK else { return nil }
        var message = digest
        var signature = [CK_BYTE](repeating: 0, count: 64)
        var length = CK_ULONG(64)
        let rv = message.withUnsafeMutableBytes { input in
            signature.withUnsafeMutableBufferPointer { output in
                module.functions.sign(
                    session, input.baseAddress?.assumingMemoryBound(to: CK_BYTE.self), CK_ULONG(input.count),
                    output.baseAddress, &length)
            }
        }
        guard rv == CKR_OK, length == 64 else {
            // An operation left active (CKR_BUFFER_TOO_SMALL) is ended by a zero-length C_Sign.
            if rv == CKR_BUFFER_TOO_SMALL {
                var none = CK_ULONG(0)
                _ = module.functions.sign(session, nil, 0, nil, &none)
            }
            return nil
        }
        guard let r = Bytes32(signature[0..<32]), let raw = Bytes32(signature[32..<64]) else { return nil }
        // libsecp256k1 verifies low-s signatures only; a token's s may be either.
        let s = ECDSA.normalize(r: r, s: raw).s
        return candidates.first { ECDSA.verify(prehash: digest, r: r, s: s, publicKey: $0) }
    }

    /// Public-key objects with `id` (when not empty) or else `label`.
    private func publicKeyObjects(session: CK_SESSION_HANDLE, label: String, id: [UInt8]) throws(PKCS11Error)
        -> [CK_OBJECT_HANDLE]
    {
        let template = AttributeTemplate().add(CK_ATTRIBUTE_TYPE(CKA_CLASS), ulong: CK_ULONG(CKO_PUBLIC_KEY))
        if !id.isEmpty {
            template.add(CK_ATTRIBUTE_TYPE(CKA_ID), bytes: id)
        } else if !label.isEmpty {
            template.add(CK_ATTRIBUTE_TYPE(CKA_LABEL), string: label)
        } else {
            return []
        }
        return try module.findObjects(session: session, template)
    }

    /// A native-endian `CK_ULONG` attribute value.
    private static func ulong(_ bytes: [UInt8]) -> CK_ULONG? {
        guard bytes.count == MemoryLayout<CK_ULONG>.size else { return nil }
        return bytes.withUnsafeBytes { $0.loadUnaligned(as: CK_ULONG.self) }
    }
}

extension PKCS11Token: CustomStringConvertible {
    /// `PKCS11Token("label", serial …, slot N)`.
    public var description: String { "PKCS11Token(\"\(label)\", serial \(serialNumber), slot \(slotID))" }
}

/// How to pick a private key on a token.
public enum PKCS11KeyLocator: Sendable, Hashable, CustomStringConvertible {
    /// The private key with this `CKA_LABEL`.
    case label(String)
    /// The private key with this `CKA_ID`.
    case id([UInt8])
    /// The secp256k1 private key whose public key has this Ethereum address.
    case address(Address)

    /// `label "…"`, `id 0x…` or `address 0x…`.
    public var description: String {
        switch self {
        case .label(let label): "label \"\(label)\""
        case .id(let id): "id \(Hex.encode(id))"
        case .address(let address): "address \(address.checksummed)"
        }
    }
}

/// A private key on a token, as ``PKCS11Token/listKeys()`` reports it.
public struct PKCS11KeyInfo: Sendable, Hashable, CustomStringConvertible {
    /// `CKA_LABEL` (empty when the key has none).
    public let label: String
    /// `CKA_ID` (empty when the key has none).
    public let id: [UInt8]
    /// The curve: `secp256k1`, another known curve, an OID, or why it is not an EC key.
    public let curve: String
    /// Whether `CKA_EC_PARAMS` names secp256k1.
    public let isSecp256k1: Bool
    /// The public key, for a secp256k1 key whose `CKA_EC_POINT` could be read.
    public let publicKey: PublicKey?

    /// `CKA_ID` as `0x`-hex.
    public var idHex: String { Hex.encode(id) }

    /// The Ethereum address of ``publicKey``.
    public var address: Address? { publicKey?.address }

    /// How errors name the key: `"label" (id 0x…)`.
    var name: String { "\"\(label)\" (id \(idHex))" }

    /// `label id address-or-curve`.
    public var description: String {
        "\(label) \(idHex) \(address?.checksummed ?? curve)"
    }
}
