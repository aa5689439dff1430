#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads and writes on file descriptors the one way the package does them: interrupted calls
/// (`EINTR`) are retried, short reads and writes continued, failures returned as ``SystemError``.
package enum POSIXIO {
    /// Calls `call` again while it fails with `EINTR` (`flock`, `fsync`, `open`, …); its last result.
    package static func retryingInterrupts(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result == -1 && errno == EINTR { continue }
            return result
        }
    }

    /// One `read(2)` into `buffer` (retried on `EINTR`): how many bytes, 0 at end of file.
    package static func readOnce(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer
    ) -> Result<Int, SystemError> {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return .success(0) }
        while true {
            let count = read(descriptor, base, buffer.count)
            if count >= 0 { return .success(count) }
            if errno != EINTR { return .failure(.current) }
        }
    }

    /// Reads into `buffer` until it is full or the file ends: how many bytes were read.
    package static func fill(
        _ buffer: UnsafeMutableRawBufferPointer, from descriptor: Int32
    ) -> Result<Int, SystemError> {
        var filled = 0
        while filled < buffer.count {
            let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
            switch readOnce(descriptor, into: rest) {
            case .success(0): return .success(filled)
            case .success(let count): filled += count
            case .failure(let error): return .failure(error)
            }
        }
        return .success(filled)
    }

    /// Everything from the descriptor's position to the end of the file.
    package static func readToEnd(_ descriptor: Int32) -> Result<[UInt8], SystemError> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let result = chunk.withUnsafeMutableBytes { readOnce(descriptor, into: $0) }
            switch result {
            case .success(0): return .success(bytes)
            case .success(let count): bytes.append(contentsOf: chunk[0..<count])
            case .failure(let error): return .failure(error)
            }
        }
    }

    /// Writes every byte of `bytes`, continuing short writes and retrying `EINTR`.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Result<Void, SystemError> {
        guard let base = bytes.baseAddress else { return .success(()) }
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return .failure(written < 0 ? .current : SystemError(code: EIO))
            }
        }
        return .success(())
    }

    /// Writes every byte of `text`'s UTF-8.
    package static func writeAll(_ text: String, to descriptor: Int32) -> Result<Void, SystemError> {
        var text = text
        return text.withUTF8 { writeAll(UnsafeRawBufferPointer($0), to: descriptor) }
    }
}
