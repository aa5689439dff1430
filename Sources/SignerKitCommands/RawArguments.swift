#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's arguments as the kernel passed them: bytes, before Swift decodes them.
///
/// `CommandLine.arguments` turns invalid UTF-8 into U+FFFD without a word, so `--text` with a
/// stray Latin-1 byte would sign a different message than the one given. ``SignerKitCommandLine``
/// checks the raw bytes first and refuses any argument that is not valid UTF-8 (exit status 65),
/// naming the flag it belongs to; Swift strings cannot carry such bytes, and a path made of them
/// could not be opened either.
enum RawArguments {
    /// The arguments after the program name, as bytes.
    static var current: [[UInt8]] {
        (1..<Int(CommandLine.argc)).map { index in
            guard let pointer = CommandLine.unsafeArgv[index] else { return [] }
            return Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
        }
    }

    /// The refusal for the first argument that is not valid UTF-8, or `nil` when all are:
    /// `--text: not valid UTF-8` (the value of `--text V` or `--text=V`), or `argument 3: not valid
    /// UTF-8` for a positional.
    static func invalidUTF8Message(_ arguments: [[UInt8]]) -> String? {
        for (index, bytes) in arguments.enumerated() where String(validating: bytes, as: UTF8.self) == nil {
            let dashes = Array("--".utf8)
            if bytes.starts(with: dashes), let equals = bytes.firstIndex(of: UInt8(ascii: "=")),
                let flag = String(validating: bytes[..<equals], as: UTF8.self)
            {
                return "\(TextSafety.displayArgument(flag)): not valid UTF-8"
            }
            if index > 0, let previous = String(validating: arguments[index - 1], as: UTF8.self),
                previous.hasPrefix("--"), !previous.contains("="), previous != "--"
            {
                return "\(TextSafety.displayArgument(previous)): not valid UTF-8"
            }
            return "argument \(index + 1): not valid UTF-8"
        }
        return nil
    }
}
