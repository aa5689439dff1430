import CPKCS11
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loaded PKCS#11 module (the vendor's `.so`), initialised for multi-threaded use.
///
/// The module is opened with `dlopen` and reached only through the function list its
/// `C_GetFunctionList` returns; nothing links p11-kit. `C_Initialize` runs once per process with
/// `CKF_OS_LOCKING_OK`, so the module uses native locks and may be called from any thread.
/// Because Cryptoki initialisation is process-wide, ``load(path:)`` hands out one shared
/// instance per module path, which stays loaded for the rest of the process.
public final class PKCS11Module: @unchecked Sendable {
    // @unchecked Sendable: every stored property is immutable after `load`. `handle` is only
    // kept to pin the library in memory; `functions` holds C function pointers into it, and the
    // module was initialised with CKF_OS_LOCKING_OK, which makes Cryptoki calls from concurrent
    // threads safe as long as no session is used by two threads at once (the types in this
    // library each guard their sessions).

    /// The path the module was loaded from, as given to ``load(path:)``.
    public let path: String

    /// Whether this process's `C_Initialize` call initialised the module (`false` when another
    /// component had already done so and the call returned `CKR_CRYPTOKI_ALREADY_INITIALIZED`).
    public let initializedHere: Bool

    /// The Cryptoki functions this library uses.
    let functions: FunctionTable

    /// The `dlopen` handle; never closed.
    private let handle: UnsafeMutableRawPointer

    /// Serialises object management (creation, destruction, searches) across all tokens and
    /// sessions of the module. SoftHSM2's file object store fails concurrent `C_CreateObject` /
    /// `C_GenerateKeyPair` calls from different sessions with `CKR_GENERAL_ERROR`
    /// (softhsm/SoftHSMv2#573); key management is rare, so it simply runs one call at a time.
    /// Signing does not take this lock.
    private let objectLock = Mutex<Void>(())

    /// How many ``PKCS11Token`` values of this module are alive (``reinitialize()`` needs none).
    let openTokens = Atomic<Int>(0)

    /// Debian's SoftHSM2 module.
    public static let softHSM2Path = "/usr/lib/softhsm/libsofthsm2.so"

    /// The module named by the `SIGNERKIT_PKCS11_MODULE` environment variable, or
    /// ``softHSM2Path`` when it is unset.
    public static var defaultPath: String {
        if let value = getenv("SIGNERKIT_PKCS11_MODULE"), value.pointee != 0 { return String(cString: value) }
        return softHSM2Path
    }

    /// Loaded modules by path.
    private static let loaded = Mutex<[String: PKCS11Module]>([:])

    private init(path: String, handle: UnsafeMutableRawPointer, functions: FunctionTable, initializedHere: Bool) {
        self.path = path
        self.handle = handle
        self.functions = functions
        self.initializedHere = initializedHere
    }

    /// Loads and initialises the module at `path`, or returns the instance already loaded from
    /// that path.
    ///
    /// A module whose `C_Initialize` fails (for SoftHSM2, a missing `SOFTHSM2_CONF` file gives
    /// `CKR_GENERAL_ERROR`) is unloaded again, so a later call can retry once the cause is fixed.
    ///
    /// - Throws: ``PKCS11Error/moduleLoadFailed(path:reason:)`` when `dlopen` fails,
    ///   ``PKCS11Error/notAPKCS11Module(path:)`` when the library has no `C_GetFunctionList`,
    ///   ``PKCS11Error/call(function:code:)`` when `C_GetFunctionList` or `C_Initialize` fails.
    public static func load(path: String = PKCS11Module.defaultPath) throws(PKCS11Error) -> PKCS11Module {
        let result: Result<PKCS11Module, PKCS11Error> = loaded.withLock { modules in
            if let module = modules[path] { return .success(module) }
            do throws(PKCS11Error) {
                let module = try open(path: path)
                modules[path] = module
                return .success(module)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// `dlopen`, `C_GetFunctionList`, `C_Initialize`.
    private static func open(path: String) throws(PKCS11Error) -> PKCS11Module {
        _ = sk_dlerror()  // clear any stale error
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            var reason = sk_dlerror().map { String(cString: $0) } ?? "unknown dlopen error"
            // glibc starts the message with the path, which the error names already.
            if reason.hasPrefix(path + ": ") { reason = String(reason.dropFirst(path.count + 2)) }
            throw .moduleLoadFailed(path: path, reason: reason)
        }
        var keepLoaded = false
        defer { if !keepLoaded { dlclose(handle) } }

        guard let symbol = dlsym(handle, "C_GetFunctionList") else { throw .notAPKCS11Module(path: path) }
        var list: CK_FUNCTION_LIST_PTR?
        let rv = sk_pkcs11_get_function_list(symbol, &list)
        guard rv == CKR_OK else { throw .call(function: "C_GetFunctionList", code: PKCS11ReturnCode(rawValue: rv)) }
        guard let list, let functions = FunctionTable(list.pointee) else { throw .notAPKCS11Module(path: path) }

        // OS locking: the module uses native mutexes. NULL arguments would declare the
        // application single-threaded, which SoftHSM2 (and others) punish with crashes.
        var arguments = CK_C_INITIALIZE_ARGS()
        arguments.flags = CK_FLAGS(CKF_OS_LOCKING_OK)
        let initRV = withUnsafeMutablePointer(to: &arguments) { functions.initialize(UnsafeMutableRawPointer($0)) }
        let initializedHere: Bool
        switch PKCS11ReturnCode(rawValue: initRV) {
        case .ok: initializedHere = true
        case .cryptokiAlreadyInitialized: initializedHere = false
        case let code: throw .call(function: "C_Initialize", code: code)
        }
        keepLoaded = true
        return PKCS11Module(path: path, handle: handle, functions: functions, initializedHere: initializedHere)
    }

    /// Finalizes and initialises the module again (`C_Finalize`, `C_Initialize`), so that it reads
    /// its slots and tokens afresh.
    ///
    /// SoftHSM2 reads each token's files when it is initialised: a process that starts while
    /// another one rewrites them may see the token as uninitialised, or fail `C_GetTokenInfo`,
    /// until it initialises again. Every session and login of this process on the module ends, so
    /// call this only while nothing uses the module (no ``PKCS11Token`` or ``PKCS11KeySigner`` alive).
    ///
    /// - Throws: ``PKCS11Error/invalidArgument(_:)`` while a ``PKCS11Token`` of the module is alive,
    ///   when another component of the process initialised the module (finalising it would pull it
    ///   from under that component) or the module has no `C_Finalize`; the failing call otherwise.
    public func reinitialize() throws(PKCS11Error) {
        guard initializedHere, let finalize = functions.finalize else {
            throw .invalidArgument("the module was initialised elsewhere in this process; it cannot be reinitialised")
        }
        let open = openTokens.load(ordering: .acquiring)
        guard open == 0 else { throw .invalidArgument("\(open) token(s) of the module are open; not reinitialised") }
        try serializingObjectAccess { () throws(PKCS11Error) in
            let finalizeRV = finalize(nil)
            guard finalizeRV == CKR_OK || finalizeRV == CKR_CRYPTOKI_NOT_INITIALIZED else {
                throw .call(function: "C_Finalize", code: PKCS11ReturnCode(rawValue: finalizeRV))
            }
            var arguments = CK_C_INITIALIZE_ARGS()
            arguments.flags = CK_FLAGS(CKF_OS_LOCKING_OK)
            let rv = withUnsafeMutablePointer(to: &arguments) { functions.initialize(UnsafeMutableRawPointer($0)) }
            guard rv == CKR_OK || rv == CKR_CRYPTOKI_ALREADY_INITIALIZED else {
                throw .call(function: "C_Initialize", code: PKCS11ReturnCode(rawValue: rv))
            }
        }
    }

    // MARK: information

    /// The module's `C_GetInfo`: Cryptoki version, manufacturer and library description.
    public func info() throws(PKCS11Error) -> PKCS11ModuleInfo {
        var info = CK_INFO()
        try check(functions.getInfo(&info), "C_GetInfo")
        return PKCS11ModuleInfo(
            cryptokiVersion: "\(info.cryptokiVersion.major).\(info.cryptokiVersion.minor)",
            manufacturer: paddedString(info.manufacturerID),
            libraryDescription: paddedString(info.libraryDescription),
            libraryVersion: "\(info.libraryVersion.major).\(info.libraryVersion.minor)")
    }

    /// Every slot the module reports, with its token (if one is present).
    public func slots() throws(PKCS11Error) -> [PKCS11SlotInfo] {
        try slotIDs().map { (slot) throws(PKCS11Error) in try slotInfo(slot) }
    }

    /// The `C_GetSlotList(FALSE)` ids.
    func slotIDs() throws(PKCS11Error) -> [CK_SLOT_ID] {
        while true {
            var count: CK_ULONG = 0
            try check(functions.getSlotList(CK_BBOOL(CK_FALSE), nil, &count), "C_GetSlotList")
            var ids = [CK_SLOT_ID](repeating: 0, count: Int(count))
            let rv = ids.withUnsafeMutableBufferPointer {
                functions.getSlotList(CK_BBOOL(CK_FALSE), $0.baseAddress, &count)
            }
            if rv == CKR_BUFFER_TOO_SMALL { continue }  // a slot appeared in between
            try check(rv, "C_GetSlotList")
            return Array(ids.prefix(Int(count)))
        }
    }

    /// `C_GetSlotInfo` and, with a token present, `C_GetTokenInfo`.
    func slotInfo(_ slot: CK_SLOT_ID) throws(PKCS11Error) -> PKCS11SlotInfo {
        var info = CK_SLOT_INFO()
        try check(functions.getSlotInfo(slot, &info), "C_GetSlotInfo")
        var token: PKCS11TokenInfo?
        var tokenError: PKCS11Error?
        if info.flags & CK_FLAGS(CKF_TOKEN_PRESENT) != 0 {
            do throws(PKCS11Error) {
                token = try tokenInfo(slot)
            } catch {
                tokenError = error
            }
        }
        return PKCS11SlotInfo(
            slotID: UInt(slot), slotDescription: paddedString(info.slotDescription),
            manufacturer: paddedString(info.manufacturerID), token: token, tokenError: tokenError)
    }

    /// `C_GetTokenInfo`.
    func tokenInfo(_ slot: CK_SLOT_ID) throws(PKCS11Error) -> PKCS11TokenInfo {
        var info = CK_TOKEN_INFO()
        try check(functions.getTokenInfo(slot, &info), "C_GetTokenInfo")
        return PKCS11TokenInfo(info)
    }

    // MARK: tokens

    /// Finds the token `selector` names and opens it (without logging in).
    ///
    /// Labels and serial numbers match only initialised tokens; SoftHSM2 renumbers a slot when
    /// its token is initialised, so select by label or serial rather than by slot id.
    ///
    /// - Throws: ``PKCS11Error/tokenNotFound(_:)``, ``PKCS11Error/ambiguousToken(_:count:)``, or
    ///   the failing call (an uninitialised token selected by slot gives
    ///   `C_OpenSession: CKR_TOKEN_NOT_RECOGNIZED`).
    public func token(_ selector: PKCS11TokenSelector) throws(PKCS11Error) -> PKCS11Token {
        let slot: CK_SLOT_ID
        switch selector {
        case .slot(let id):
            slot = CK_SLOT_ID(id)
        case .label, .serialNumber:
            var matches: [CK_SLOT_ID] = []
            for candidate in try slotIDs() {
                // A slot whose token cannot be read (SoftHSM2: its storage was removed) is
                // skipped rather than hiding every other token.
                guard let info = try? slotInfo(candidate), let token = info.token, token.isInitialized else {
                    continue
                }
                switch selector {
                case .label(let label) where token.label == label: matches.append(candidate)
                case .serialNumber(let serial) where token.serialNumber == serial: matches.append(candidate)
                default: break
                }
            }
            guard let first = matches.first else { throw .tokenNotFound(selector.description) }
            guard matches.count == 1 else { throw .ambiguousToken(selector.description, count: matches.count) }
            slot = first
        }
        return try PKCS11Token(module: self, slot: slot)
    }

    // MARK: sessions and objects (callers hold the session exclusively)

    /// `C_OpenSession` with `CKF_SERIAL_SESSION`, plus `CKF_RW_SESSION` when `readWrite`.
    func openSession(slot: CK_SLOT_ID, readWrite: Bool) throws(PKCS11Error) -> CK_SESSION_HANDLE {
        var flags = CK_FLAGS(CKF_SERIAL_SESSION)
        if readWrite { flags |= CK_FLAGS(CKF_RW_SESSION) }
        var session: CK_SESSION_HANDLE = CK_SESSION_HANDLE(CK_INVALID_HANDLE)
        try check(functions.openSession(slot, flags, nil, nil, &session), "C_OpenSession")
        return session
    }

    /// `C_CloseSession`, ignoring failures (the session may already be gone).
    func closeSession(_ session: CK_SESSION_HANDLE) {
        _ = functions.closeSession(session)
    }

    /// All objects matching `template` (`C_FindObjectsInit` / `C_FindObjects` / `C_FindObjectsFinal`).
    func findObjects(session: CK_SESSION_HANDLE, _ template: AttributeTemplate) throws(PKCS11Error)
        -> [CK_OBJECT_HANDLE]
    {
        let rv = template.withAttributes { functions.findObjectsInit(session, $0, $1) }
        try check(rv, "C_FindObjectsInit")
        var found: [CK_OBJECT_HANDLE] = []
        var failure: CK_RV = CK_RV(CKR_OK)
        var batch = [CK_OBJECT_HANDLE](repeating: 0, count: 32)
        while true {
            var count: CK_ULONG = 0
            let rv = batch.withUnsafeMutableBufferPointer {
                functions.findObjects(session, $0.baseAddress, CK_ULONG($0.count), &count)
            }
            if rv != CKR_OK { failure = rv; break }
            if count == 0 { break }
            found.append(contentsOf: batch.prefix(Int(count)))
        }
        let finalRV = functions.findObjectsFinal(session)
        try check(failure, "C_FindObjects")
        try check(finalRV, "C_FindObjectsFinal")
        return found
    }

    /// One attribute's value, or `nil` when the object has no such attribute or it is sensitive.
    func attribute(session: CK_SESSION_HANDLE, object: CK_OBJECT_HANDLE, _ type: CK_ATTRIBUTE_TYPE) throws(PKCS11Error)
        -> [UInt8]?
    {
        // Size, then value. With a store other processes write (SoftHSM2's files), the value can grow
        // between the two calls (CKR_BUFFER_TOO_SMALL): ask for the size again, a bounded number of times.
        for attempt in 1...Self.attributeAttempts {
            var attribute = CK_ATTRIBUTE(type: type, pValue: nil, ulValueLen: 0)
            var rv = functions.getAttributeValue(session, object, &attribute, 1)
            if rv == CKR_ATTRIBUTE_TYPE_INVALID || rv == CKR_ATTRIBUTE_SENSITIVE { return nil }
            try check(rv, "C_GetAttributeValue")
            if attribute.ulValueLen == SK_CK_UNAVAILABLE_INFORMATION { return nil }
            var value = [UInt8](repeating: 0, count: Int(attribute.ulValueLen))
            rv = value.withUnsafeMutableBytes { buffer in
                attribute.pValue = buffer.baseAddress
                defer { attribute.pValue = nil }
                return functions.getAttributeValue(session, object, &attribute, 1)
            }
            if rv == CKR_BUFFER_TOO_SMALL && attempt < Self.attributeAttempts { continue }
            if rv == CKR_ATTRIBUTE_TYPE_INVALID || rv == CKR_ATTRIBUTE_SENSITIVE { return nil }
            try check(rv, "C_GetAttributeValue")
            if attribute.ulValueLen == SK_CK_UNAVAILABLE_INFORMATION { return nil }
            return Array(value.prefix(Int(attribute.ulValueLen)))
        }
        return nil
    }

    /// How often ``attribute(session:object:_:)`` asks again when the value outgrew its size.
    static let attributeAttempts = 4

    /// Runs `body` while holding the module-wide object-management lock.
    func serializingObjectAccess<R>(_ body: () throws(PKCS11Error) -> R) throws(PKCS11Error) -> R {
        try objectLock.withLock { (_: inout Void) throws(PKCS11Error) -> R in try body() }
    }

    /// Throws ``PKCS11Error/call(function:code:)`` unless `rv` is `CKR_OK`.
    @inline(__always)
    func check(_ rv: CK_RV, _ function: StaticString) throws(PKCS11Error) {
        guard rv == CKR_OK else { throw .call(function: function.description, code: PKCS11ReturnCode(rawValue: rv)) }
    }
}

extension PKCS11Module: CustomStringConvertible {
    /// `PKCS11Module(/path/to/module.so)`.
    public var description: String { "PKCS11Module(\(path))" }
}

/// The Cryptoki entry points this library calls, checked for presence once at load.
///
/// `@unchecked Sendable`: the members are immutable C function pointers into the loaded module,
/// which is never unloaded while the table exists.
struct FunctionTable: @unchecked Sendable {
    let initialize: CK_C_Initialize
    let finalize: CK_C_Finalize?
    let getInfo: CK_C_GetInfo
    let getSlotList: CK_C_GetSlotList
    let getSlotInfo: CK_C_GetSlotInfo
    let getTokenInfo: CK_C_GetTokenInfo
    let openSession: CK_C_OpenSession
    let closeSession: CK_C_CloseSession
    let getSessionInfo: CK_C_GetSessionInfo
    let login: CK_C_Login
    let createObject: CK_C_CreateObject
    let destroyObject: CK_C_DestroyObject
    let getAttributeValue: CK_C_GetAttributeValue
    let findObjectsInit: CK_C_FindObjectsInit
    let findObjects: CK_C_FindObjects
    let findObjectsFinal: CK_C_FindObjectsFinal
    let signInit: CK_C_SignInit
    let sign: CK_C_Sign
    let generateKeyPair: CK_C_GenerateKeyPair

    /// `nil` if any entry is missing (not a usable module).
    init?(_ list: CK_FUNCTION_LIST) {
        guard let initialize = list.C_Initialize, let getInfo = list.C_GetInfo, let getSlotList = list.C_GetSlotList,
            let getSlotInfo = list.C_GetSlotInfo, let getTokenInfo = list.C_GetTokenInfo,
            let openSession = list.C_OpenSession, let closeSession = list.C_CloseSession,
            let getSessionInfo = list.C_GetSessionInfo, let login = list.C_Login,
            let createObject = list.C_CreateObject, let destroyObject = list.C_DestroyObject,
            let getAttributeValue = list.C_GetAttributeValue, let findObjectsInit = list.C_FindObjectsInit,
            let findObjects = list.C_FindObjects, let findObjectsFinal = list.C_FindObjectsFinal,
            let signInit = list.C_SignInit, let sign = list.C_Sign, let generateKeyPair = list.C_GenerateKeyPair
        else { return nil }
        self.initialize = initialize
        finalize = list.C_Finalize
        self.getInfo = getInfo
        self.getSlotList = getSlotList
        self.getSlotInfo = getSlotInfo
        self.getTokenInfo = getTokenInfo
        self.openSession = openSession
        self.closeSession = closeSession
        self.getSessionInfo = getSessionInfo
        self.login = login
        self.createObject = createObject
        self.destroyObject = destroyObject
        self.getAttributeValue = getAttributeValue
        self.findObjectsInit = findObjectsInit
        self.findObjects = findObjects
        self.findObjectsFinal = findObjectsFinal
        self.signInit = signInit
        self.sign = sign
        self.generateKeyPair = generateKeyPair
    }
}

/// A blank-padded fixed-size Cryptoki text field (a C array imported as a tuple) as a string.
func paddedString<T>(_ field: T) -> String {
    withUnsafeBytes(of: field) { raw in
        var end = raw.count
        while end > 0, raw[end - 1] == 0x20 || raw[end - 1] == 0 { end -= 1 }
        return String(decoding: raw.prefix(end), as: UTF8.self)
    }
}

/// What `C_GetInfo` reports about a module.
public struct PKCS11ModuleInfo: Sendable, Hashable {
    /// The Cryptoki version the module implements, e.g. `2.40`.
    public let cryptokiVersion: String
    /// The module's manufacturer.
    public let manufacturer: String
    /// The module's description of itself.
    public let libraryDescription: String
    /// The module's own version.
    public let libraryVersion: String
}

/// A slot and, when one is present, its token.
public struct PKCS11SlotInfo: Sendable, Hashable {
    /// The slot id (SoftHSM2 renumbers slots when tokens are initialised).
    public let slotID: UInt
    /// The slot's description.
    public let slotDescription: String
    /// The slot's manufacturer.
    public let manufacturer: String
    /// The token in the slot, or `nil` when none is present or it could not be read.
    public let token: PKCS11TokenInfo?
    /// Why `C_GetTokenInfo` failed for a token that is present (SoftHSM2 reports
    /// `CKR_GENERAL_ERROR` when a token's storage has gone); `nil` otherwise.
    public let tokenError: PKCS11Error?
}

/// What `C_GetTokenInfo` reports about a token.
public struct PKCS11TokenInfo: Sendable, Hashable {
    /// The token label (trailing blanks removed); empty for an uninitialised token.
    public let label: String
    /// The token manufacturer.
    public let manufacturer: String
    /// The token model.
    public let model: String
    /// The token serial number (trailing blanks removed).
    public let serialNumber: String
    /// `CKF_TOKEN_INITIALIZED`.
    public let isInitialized: Bool
    /// `CKF_LOGIN_REQUIRED`.
    public let loginRequired: Bool
    /// `CKF_PROTECTED_AUTHENTICATION_PATH`: the PIN is entered on the device (a PIN pad).
    public let hasProtectedAuthenticationPath: Bool
    /// `CKF_USER_PIN_COUNT_LOW`: a wrong user PIN was entered since the last good login.
    public let userPINCountLow: Bool
    /// `CKF_USER_PIN_FINAL_TRY`: one more wrong user PIN locks the token.
    public let userPINFinalTry: Bool
    /// `CKF_USER_PIN_LOCKED`.
    public let userPINLocked: Bool

    init(_ info: CK_TOKEN_INFO) {
        label = paddedString(info.label)
        manufacturer = paddedString(info.manufacturerID)
        model = paddedString(info.model)
        serialNumber = paddedString(info.serialNumber)
        let flags = info.flags
        isInitialized = flags & CK_FLAGS(CKF_TOKEN_INITIALIZED) != 0
        loginRequired = flags & CK_FLAGS(CKF_LOGIN_REQUIRED) != 0
        hasProtectedAuthenticationPath = flags & CK_FLAGS(CKF_PROTECTED_AUTHENTICATION_PATH) != 0
        userPINCountLow = flags & CK_FLAGS(CKF_USER_PIN_COUNT_LOW) != 0
        userPINFinalTry = flags & CK_FLAGS(CKF_USER_PIN_FINAL_TRY) != 0
        userPINLocked = flags & CK_FLAGS(CKF_USER_PIN_LOCKED) != 0
    }
}

/// How to pick a token.
public enum PKCS11TokenSelector: Sendable, Hashable, CustomStringConvertible {
    /// The initialised token with this label (`CKA_LABEL` of the token, trailing blanks ignored).
    case label(String)
    /// The initialised token with this serial number.
    case serialNumber(String)
    /// The token in this slot (slot ids may change when tokens are added or initialised).
    case slot(UInt)

    /// `label "…"`, `serial number "…"` or `slot N`.
    public var description: String {
        switch self {
        case .label(let label): "label \"\(label)\""
        case .serialNumber(let serial): "serial number \"\(serial)\""
        case .slot(let id): "slot \(id)"
        }
    }
}
