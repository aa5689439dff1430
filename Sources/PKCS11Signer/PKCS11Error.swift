import EthereumPrimitives
import SignerKit

/// A PKCS#11 return value (`CK_RV`) with its standard name.
///
/// Every code defined by PKCS#11 v2.40 and v3.0–3.2 has a name; vendor codes read as
/// `CKR_VENDOR_DEFINED+0x…` and anything else as `CKR_0x…`.
public struct PKCS11ReturnCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric `CK_RV`.
    public let rawValue: UInt

    /// Wraps a numeric `CK_RV`.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The constant's name, e.g. `CKR_PIN_INCORRECT`.
    public var name: String {
        if let name = Self.names[rawValue] { return name }
        if rawValue & Self.vendorDefinedBit != 0 {
            return "CKR_VENDOR_DEFINED+0x" + String(rawValue & ~Self.vendorDefinedBit, radix: 16)
        }
        return "CKR_0x" + String(rawValue, radix: 16)
    }

    /// The constant's name.
    public var description: String { name }

    /// `CKR_VENDOR_DEFINED` (`1 << 31`).
    static let vendorDefinedBit: UInt = 1 << 31

    /// `CKR_OK`.
    public static let ok = Self(rawValue: 0x0)
    /// `CKR_GENERAL_ERROR`.
    public static let generalError = Self(rawValue: 0x5)
    /// `CKR_ATTRIBUTE_SENSITIVE`.
    public static let attributeSensitive = Self(rawValue: 0x11)
    /// `CKR_ATTRIBUTE_TYPE_INVALID`.
    public static let attributeTypeInvalid = Self(rawValue: 0x12)
    /// `CKR_DEVICE_ERROR`.
    public static let deviceError = Self(rawValue: 0x30)
    /// `CKR_DEVICE_REMOVED`.
    public static let deviceRemoved = Self(rawValue: 0x32)
    /// `CKR_KEY_HANDLE_INVALID`.
    public static let keyHandleInvalid = Self(rawValue: 0x60)
    /// `CKR_OBJECT_HANDLE_INVALID`.
    public static let objectHandleInvalid = Self(rawValue: 0x82)
    /// `CKR_OPERATION_ACTIVE`.
    public static let operationActive = Self(rawValue: 0x90)
    /// `CKR_PIN_INCORRECT`.
    public static let pinIncorrect = Self(rawValue: 0xA0)
    /// `CKR_PIN_LOCKED`.
    public static let pinLocked = Self(rawValue: 0xA4)
    /// `CKR_SESSION_CLOSED`.
    public static let sessionClosed = Self(rawValue: 0xB0)
    /// `CKR_SESSION_HANDLE_INVALID`.
    public static let sessionHandleInvalid = Self(rawValue: 0xB3)
    /// `CKR_TOKEN_NOT_PRESENT`.
    public static let tokenNotPresent = Self(rawValue: 0xE0)
    /// `CKR_TOKEN_NOT_RECOGNIZED`.
    public static let tokenNotRecognized = Self(rawValue: 0xE1)
    /// `CKR_BUFFER_TOO_SMALL`.
    public static let bufferTooSmall = Self(rawValue: 0x150)
    /// `CKR_USER_ALREADY_LOGGED_IN`.
    public static let userAlreadyLoggedIn = Self(rawValue: 0x100)
    /// `CKR_USER_NOT_LOGGED_IN`.
    public static let userNotLoggedIn = Self(rawValue: 0x101)
    /// `CKR_CRYPTOKI_NOT_INITIALIZED`.
    public static let cryptokiNotInitialized = Self(rawValue: 0x190)
    /// `CKR_CRYPTOKI_ALREADY_INITIALIZED`.
    public static let cryptokiAlreadyInitialized = Self(rawValue: 0x191)

    /// Every standard `CK_RV` and its name.
    ///
    /// Values follow the OASIS headers (`pkcs11t.h` v2.40 and v3.0–3.2). p11-kit's `pkcs11.h`
    /// numbers five v2.40 codes differently (`CKR_EXCEEDED_MAX_ITERATIONS` … `CKR_PUBLIC_KEY_INVALID`
    /// as 0x1C0–0x1C4 instead of 0x1B5–0x1B9); modules built against it return those values, so
    /// both are named.
    public static let names: [UInt: String] = [
        0x000: "CKR_OK",
        0x001: "CKR_CANCEL",
        0x002: "CKR_HOST_MEMORY",
        0x003: "CKR_SLOT_ID_INVALID",
        0x005: "CKR_GENERAL_ERROR",
        0x006: "CKR_FUNCTION_FAILED",
        0x007: "CKR_ARGUMENTS_BAD",
        0x008: "CKR_NO_EVENT",
        0x009: "CKR_NEED_TO_CREATE_THREADS",
        0x00A: "CKR_CANT_LOCK",
        0x010: "CKR_ATTRIBUTE_READ_ONLY",
        0x011: "CKR_ATTRIBUTE_SENSITIVE",
        0x012: "CKR_ATTRIBUTE_TYPE_INVALID",
        0x013: "CKR_ATTRIBUTE_VALUE_INVALID",
        0x01B: "CKR_ACTION_PROHIBITED",
        0x020: "CKR_DATA_INVALID",
        0x021: "CKR_DATA_LEN_RANGE",
        0x030: "CKR_DEVICE_ERROR",
        0x031: "CKR_DEVICE_MEMORY",
        0x032: "CKR_DEVICE_REMOVED",
        0x035: "CKR_AEAD_DECRYPT_FAILED",
        0x040: "CKR_ENCRYPTED_DATA_INVALID",
        0x041: "CKR_ENCRYPTED_DATA_LEN_RANGE",
        0x050: "CKR_FUNCTION_CANCELED",
        0x051: "CKR_FUNCTION_NOT_PARALLEL",
        0x054: "CKR_FUNCTION_NOT_SUPPORTED",
        0x060: "CKR_KEY_HANDLE_INVALID",
        0x062: "CKR_KEY_SIZE_RANGE",
        0x063: "CKR_KEY_TYPE_INCONSISTENT",
        0x064: "CKR_KEY_NOT_NEEDED",
        0x065: "CKR_KEY_CHANGED",
        0x066: "CKR_KEY_NEEDED",
        0x067: "CKR_KEY_INDIGESTIBLE",
        0x068: "CKR_KEY_FUNCTION_NOT_PERMITTED",
        0x069: "CKR_KEY_NOT_WRAPPABLE",
        0x06A: "CKR_KEY_UNEXTRACTABLE",
        0x070: "CKR_MECHANISM_INVALID",
        0x071: "CKR_MECHANISM_PARAM_INVALID",
        0x082: "CKR_OBJECT_HANDLE_INVALID",
        0x090: "CKR_OPERATION_ACTIVE",
        0x091: "CKR_OPERATION_NOT_INITIALIZED",
        0x0A0: "CKR_PIN_INCORRECT",
        0x0A1: "CKR_PIN_INVALID",
        0x0A2: "CKR_PIN_LEN_RANGE",
        0x0A3: "CKR_PIN_EXPIRED",
        0x0A4: "CKR_PIN_LOCKED",
        0x0B0: "CKR_SESSION_CLOSED",
        0x0B1: "CKR_SESSION_COUNT",
        0x0B3: "CKR_SESSION_HANDLE_INVALID",
        0x0B4: "CKR_SESSION_PARALLEL_NOT_SUPPORTED",
        0x0B5: "CKR_SESSION_READ_ONLY",
        0x0B6: "CKR_SESSION_EXISTS",
        0x0B7: "CKR_SESSION_READ_ONLY_EXISTS",
        0x0B8: "CKR_SESSION_READ_WRITE_SO_EXISTS",
        0x0C0: "CKR_SIGNATURE_INVALID",
        0x0C1: "CKR_SIGNATURE_LEN_RANGE",
        0x0D0: "CKR_TEMPLATE_INCOMPLETE",
        0x0D1: "CKR_TEMPLATE_INCONSISTENT",
        0x0E0: "CKR_TOKEN_NOT_PRESENT",
        0x0E1: "CKR_TOKEN_NOT_RECOGNIZED",
        0x0E2: "CKR_TOKEN_WRITE_PROTECTED",
        0x0F0: "CKR_UNWRAPPING_KEY_HANDLE_INVALID",
        0x0F1: "CKR_UNWRAPPING_KEY_SIZE_RANGE",
        0x0F2: "CKR_UNWRAPPING_KEY_TYPE_INCONSISTENT",
        0x100: "CKR_USER_ALREADY_LOGGED_IN",
        0x101: "CKR_USER_NOT_LOGGED_IN",
        0x102: "CKR_USER_PIN_NOT_INITIALIZED",
        0x103: "CKR_USER_TYPE_INVALID",
        0x104: "CKR_USER_ANOTHER_ALREADY_LOGGED_IN",
        0x105: "CKR_USER_TOO_MANY_TYPES",
        0x110: "CKR_WRAPPED_KEY_INVALID",
        0x112: "CKR_WRAPPED_KEY_LEN_RANGE",
        0x113: "CKR_WRAPPING_KEY_HANDLE_INVALID",
        0x114: "CKR_WRAPPING_KEY_SIZE_RANGE",
        0x115: "CKR_WRAPPING_KEY_TYPE_INCONSISTENT",
        0x120: "CKR_RANDOM_SEED_NOT_SUPPORTED",
        0x121: "CKR_RANDOM_NO_RNG",
        0x130: "CKR_DOMAIN_PARAMS_INVALID",
        0x140: "CKR_CURVE_NOT_SUPPORTED",
        0x150: "CKR_BUFFER_TOO_SMALL",
        0x160: "CKR_SAVED_STATE_INVALID",
        0x170: "CKR_INFORMATION_SENSITIVE",
        0x180: "CKR_STATE_UNSAVEABLE",
        0x190: "CKR_CRYPTOKI_NOT_INITIALIZED",
        0x191: "CKR_CRYPTOKI_ALREADY_INITIALIZED",
        0x1A0: "CKR_MUTEX_BAD",
        0x1A1: "CKR_MUTEX_NOT_LOCKED",
        0x1B0: "CKR_NEW_PIN_MODE",
        0x1B1: "CKR_NEXT_OTP",
        0x1B5: "CKR_EXCEEDED_MAX_ITERATIONS",
        0x1B6: "CKR_FIPS_SELF_TEST_FAILED",
        0x1B7: "CKR_LIBRARY_LOAD_FAILED",
        0x1B8: "CKR_PIN_TOO_WEAK",
        0x1B9: "CKR_PUBLIC_KEY_INVALID",
        // p11-kit's numbering of the five codes above.
        0x1C0: "CKR_EXCEEDED_MAX_ITERATIONS",
        0x1C1: "CKR_FIPS_SELF_TEST_FAILED",
        0x1C2: "CKR_LIBRARY_LOAD_FAILED",
        0x1C3: "CKR_PIN_TOO_WEAK",
        0x1C4: "CKR_PUBLIC_KEY_INVALID",
        0x200: "CKR_FUNCTION_REJECTED",
        0x201: "CKR_TOKEN_RESOURCE_EXCEEDED",
        0x202: "CKR_OPERATION_CANCEL_FAILED",
        0x203: "CKR_KEY_EXHAUSTED",
        0x204: "CKR_PENDING",
        0x205: "CKR_SESSION_ASYNC_NOT_SUPPORTED",
        0x206: "CKR_SEED_RANDOM_REQUIRED",
        0x207: "CKR_OPERATION_NOT_VALIDATED",
        0x208: "CKR_TOKEN_NOT_INITIALIZED",
        0x209: "CKR_PARAMETER_SET_NOT_SUPPORTED",
        0x8000_0000: "CKR_VENDOR_DEFINED",
    ]
}

/// Why a PKCS#11 operation failed.
///
/// Descriptions name the failing call and return code (`C_Login: CKR_PIN_INCORRECT`), the module
/// path, token or key; never a PIN or key material.
public enum PKCS11Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// A Cryptoki function returned something other than `CKR_OK`.
    case call(function: String, code: PKCS11ReturnCode)
    /// `dlopen` could not load the module; carries the path and `dlerror()` text.
    case moduleLoadFailed(path: String, reason: String)
    /// The library loaded but exports no `C_GetFunctionList` (or returns an unusable function
    /// list): it is not a PKCS#11 module.
    case notAPKCS11Module(path: String)
    /// No initialised token matches the selector (label, serial number or slot).
    case tokenNotFound(String)
    /// Several tokens match the selector; carries the selector and the number of matches.
    case ambiguousToken(String, count: Int)
    /// No private key matches the locator.
    case keyNotFound(String)
    /// Several private keys match the locator; carries the locator and the number of matches.
    case ambiguousKey(String, count: Int)
    /// A key with this label or id already exists on the token.
    case keyExists(String)
    /// The key is not an EC key on secp256k1; carries the key and the curve found.
    case notSecp256k1(key: String, curve: String)
    /// The key's `CKA_EC_POINT` (or the public-key object holding it) is missing or is not a
    /// secp256k1 point.
    case invalidECPoint(key: String)
    /// The PIN could not be obtained from its source; the text names the source, never the PIN.
    case pinUnavailable(String)
    /// The token returned a signature of an unexpected length (raw r‖s is 64 bytes).
    case unexpectedSignatureLength(Int)
    /// The token's signature does not recover to the key's cached public key.
    case signatureMismatch(String)
    /// An argument was rejected before reaching the token (for example an over-long label).
    case invalidArgument(String)

    /// The return code, when the error is a failed Cryptoki call.
    public var returnCode: PKCS11ReturnCode? {
        if case .call(_, let code) = self { return code }
        return nil
    }

    /// A one-line explanation without secrets.
    public var description: String {
        switch self {
        case .call(let function, let code):
            "\(function): \(code.name)"
        case .moduleLoadFailed(let path, let reason):
            "cannot load PKCS#11 module \(EchoedText.abbreviated(path)): \(EchoedText.abbreviated(reason))"
        case .notAPKCS11Module(let path):
            "\(EchoedText.abbreviated(path)) is not a PKCS#11 module (no usable C_GetFunctionList)"
        case .tokenNotFound(let selector):
            "no initialised PKCS#11 token with \(selector)"
        case .ambiguousToken(let selector, let count):
            "\(count) PKCS#11 tokens match \(selector); select by serial number or slot"
        case .keyNotFound(let locator):
            "no private key with \(locator) on the token"
        case .ambiguousKey(let locator, let count):
            "\(count) private keys match \(locator); select by id"
        case .keyExists(let locator):
            "a key with \(locator) already exists on the token"
        case .notSecp256k1(let key, let curve):
            "key \(key) is not secp256k1 (curve \(curve)): secp256k1 is required"
        case .invalidECPoint(let key):
            "key \(key) has no valid secp256k1 CKA_EC_POINT"
        case .pinUnavailable(let reason):
            "PIN unavailable: \(reason)"
        case .unexpectedSignatureLength(let length):
            "CKM_ECDSA returned \(length) bytes, expected 64 (raw r‖s)"
        case .signatureMismatch(let text):
            "signature check failed: \(text)"
        case .invalidArgument(let text):
            "invalid argument: \(text)"
        }
    }

    /// The error as a `SignerError` for the `PrehashSigner` interface: a signature that does
    /// not verify becomes `verificationFailed`, everything else `backendFailure`.
    public var signerError: SignerError {
        switch self {
        case .signatureMismatch, .unexpectedSignatureLength:
            .verificationFailed("PKCS#11: \(description)")
        default:
            .backendFailure("PKCS#11: \(description)")
        }
    }
}
