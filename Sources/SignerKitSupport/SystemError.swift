#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call's `errno`, with its text.
package struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` value.
    package let code: Int32

    /// The error of the current `errno`.
    package static var current: SystemError { SystemError(code: errno) }

    /// An error for `code`.
    package init(code: Int32) { self.code = code }

    /// `strerror(code)`.
    package var description: String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
