import SignerKitSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Lines read from an open file descriptor through one buffer (1 MiB for a regular file, 64 KiB for a
/// pipe), so a file of any size is read with bounded memory (a line is never longer in memory than itself
/// plus the buffer). The descriptor is closed when the buffer is released.
final class DescriptorLineBuffer {
    private let descriptor: Int32
    private let label: String
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    /// Where the next line ends, when ``hasBufferedLine()`` has already found it.
    private var knownNewline: Int?
    /// Bytes asked of one `read(2)`: 1 MiB from a regular file (fewer calls and copies), 64 KiB from a
    /// pipe or terminal (whatever is there comes back at once anyway).
    private let readSize: Int

    /// Whether the descriptor is a regular file, whose reads never wait for a writer.
    private let isRegularFile: Bool

    /// Takes ownership of `descriptor`; `label` names the source in errors.
    init(descriptor: Int32, label: String) {
        self.descriptor = descriptor
        self.label = label
        var status = stat()
        isRegularFile = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
        readSize = isRegularFile ? 1 << 20 : 65_536
    }

    deinit { close(descriptor) }

    /// Whether ``next()`` will not wait for a writer: always for a regular file (its reads never wait),
    /// else when the next line is already in the buffer.
    func hasBufferedLine() -> Bool {
        if isRegularFile || atEnd || knownNewline != nil { return true }
        knownNewline = newline(from: start)
        return knownNewline != nil
    }

    /// The next line without its `\n`, or `nil` at the end; a last line without a terminator is
    /// still returned.
    ///
    /// - Throws: 65 `<label>: <errno text>` when reading fails.
    func next() throws(CommandFailure) -> [UInt8]? {
        var searchFrom = start
        while true {
            if let newline = knownNewline ?? newline(from: searchFrom) {
                knownNewline = nil
                let line = Array(buffer[start..<newline])
                start = newline + 1
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])
                start = buffer.count
                return line
            }
            // Keep only the unfinished line before reading more.
            if start > 0 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            searchFrom = buffer.count
            try fill()
        }
    }

    /// The index of the first `\n` at or after `index` (memchr), or `nil`.
    private func newline(from index: Int) -> Int? {
        guard index < buffer.count else { return nil }
        return buffer.withUnsafeBytes { bytes -> Int? in
            guard let base = bytes.baseAddress, let found = memchr(base + index, 0x0A, bytes.count - index) else {
                return nil
            }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }

    /// Appends one `read(2)` of up to `readSize` bytes, or marks the end.
    private func fill() throws(CommandFailure) {
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: readSize))
        let result = buffer.withUnsafeMutableBytes { bytes in
            POSIXIO.readOnce(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: bytes[old...]))
        }
        switch result {
        case .success(let count):
            buffer.removeLast(readSize - count)
            if count == 0 { atEnd = true }
        case .failure(let error):
            buffer.removeLast(readSize)
            throw .invalidInput("\(label): \(error)")
        }
    }
}
