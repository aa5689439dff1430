#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Unbuffered output. Rows go straight to the file descriptor, so the table streams through pipes
/// (the benchmark plugin runs this executable with its stdout attached to SwiftPM's output pipe,
/// where stdio would otherwise block-buffer everything until exit).
enum Console {
    /// Writes `text` plus a newline to standard output.
    static func out(_ text: String = "") { write(fd: 1, text + "\n") }

    /// Writes `text` plus a newline to standard error.
    static func err(_ text: String) { write(fd: 2, text + "\n") }

    private static func write(fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bytes in
            guard var base = bytes.baseAddress else { return }
            var remaining = bytes.count
            while remaining > 0 {
                #if canImport(Darwin)
                    let written = Darwin.write(fd, base, remaining)
                #elseif canImport(Musl)
                    let written = Musl.write(fd, base, remaining)
                #else
                    let written = Glibc.write(fd, base, remaining)
                #endif
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                base += written
                remaining -= written
            }
        }
    }
}
