import CPKCS11
import SignerKitSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `CK_ATTRIBUTE` array whose values live in memory owned by the template.
///
/// Values are copied into private allocations that are zeroed and freed when the template is
/// released. ``addBorrowed(_:_:)`` points at caller memory instead (used for secret key bytes,
/// which stay in secure memory); such a template must not outlive the borrowed buffer.
final class AttributeTemplate {
    private var attributes: [CK_ATTRIBUTE] = []
    private var owned: [UnsafeMutableRawBufferPointer] = []

    init() {}

    deinit {
        for buffer in owned {
            MemoryWiping.wipe(buffer)
            buffer.deallocate()
        }
    }

    /// Appends an attribute with a copy of `bytes`.
    @discardableResult
    func add(_ type: CK_ATTRIBUTE_TYPE, bytes: some Collection<UInt8>) -> Self {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 8)
        owned.append(buffer)
        _ = buffer.initializeMemory(as: UInt8.self, from: bytes)
        attributes.append(CK_ATTRIBUTE(type: type, pValue: buffer.baseAddress, ulValueLen: CK_ULONG(bytes.count)))
        return self
    }

    /// Appends a `CK_ULONG` attribute (classes, key types).
    @discardableResult
    func add(_ type: CK_ATTRIBUTE_TYPE, ulong value: CK_ULONG) -> Self {
        withUnsafeBytes(of: value) { add(type, bytes: $0) }
    }

    /// Appends a `CK_BBOOL` attribute.
    @discardableResult
    func add(_ type: CK_ATTRIBUTE_TYPE, bool value: Bool) -> Self {
        add(type, bytes: [value ? SK_CK_TRUE : SK_CK_FALSE])
    }

    /// Appends a UTF-8 string attribute (labels), without a terminating NUL.
    @discardableResult
    func add(_ type: CK_ATTRIBUTE_TYPE, string value: String) -> Self {
        add(type, bytes: Array(value.utf8))
    }

    /// Appends an attribute pointing at `buffer` without copying it.
    @discardableResult
    func addBorrowed(_ type: CK_ATTRIBUTE_TYPE, _ buffer: UnsafeRawBufferPointer) -> Self {
        attributes.append(
            CK_ATTRIBUTE(
                type: type, pValue: UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                ulValueLen: CK_ULONG(buffer.count)))
        return self
    }

    /// Calls `body` with the `CK_ATTRIBUTE` array and its length.
    func withAttributes<R>(_ body: (UnsafeMutablePointer<CK_ATTRIBUTE>?, CK_ULONG) -> R) -> R {
        attributes.withUnsafeMutableBufferPointer { body($0.baseAddress, CK_ULONG($0.count)) }
    }
}
