import EIP712
import EthereumPrimitives
import Secp256k1

/// Where a document comes from: a file, or standard input for `-` or no argument.
enum InputSource: Sendable, Equatable {
    /// Standard input.
    case standardInput
    /// A file path.
    case file(String)

    /// The source named by an optional `FILE|-` positional.
    init(positional: String?) {
        if let positional, positional != "-" { self = .file(positional) } else { self = .standardInput }
    }

    /// How errors name the source: the path, or `stdin`.
    var label: String {
        switch self {
        case .standardInput: "stdin"
        case .file(let path): TextSafety.displayArgument(path)
        }
    }

    /// All bytes of the source.
    func readBytes(io: any CommandIO) throws(CommandFailure) -> [UInt8] {
        switch self {
        case .file(let path):
            return try FileAccess.readAll(path)
        case .standardInput:
            do { return try io.readStandardInput() } catch { throw .invalidInput("stdin: \(error)") }
        }
    }

    /// The source as UTF-8 text (a leading byte-order mark is dropped).
    ///
    /// - Throws: 65 `<label>: not valid UTF-8` for other encodings.
    func readText(io: any CommandIO) throws(CommandFailure) -> String {
        try Self.text(readBytes(io: io), label: label)
    }

    /// Successive lines of the source without their `\n`, read as they are needed (a file of any size
    /// is read with bounded memory).
    func lines(io: any CommandIO) throws(CommandFailure) -> LineReader {
        switch self {
        case .file(let path):
            return LineReader(file: DescriptorLineBuffer(descriptor: try FileAccess.openForReading(path), label: label))
        case .standardInput:
            return LineReader(io: io)
        }
    }

    /// Decodes UTF-8, dropping a leading byte-order mark.
    static func text(_ bytes: [UInt8], label: String) throws(CommandFailure) -> String {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        guard let text = String(validating: body, as: UTF8.self) else {
            throw .invalidInput("\(label): not valid UTF-8")
        }
        return text
    }
}

/// Lines of a file or of standard input, pulled one at a time.
struct LineReader {
    private enum Source {
        case file(DescriptorLineBuffer)
        case standardInput(any CommandIO)
    }

    private let source: Source

    /// Lines of an open file.
    init(file: DescriptorLineBuffer) {
        source = .file(file)
    }

    /// Lines of standard input.
    init(io: any CommandIO) {
        source = .standardInput(io)
    }

    /// The next line (a trailing `\r` removed), or `nil` at the end.
    func next() throws(CommandFailure) -> [UInt8]? {
        var line: [UInt8]
        switch source {
        case .file(let buffer):
            guard let next = try buffer.next() else { return nil }
            line = next
        case .standardInput(let io):
            do {
                guard let next = try io.readStandardInputLine() else { return nil }
                line = next
            } catch {
                throw .invalidInput("stdin: \(error)")
            }
        }
        if line.last == 0x0D { line.removeLast() }
        return line
    }

    /// Whether ``next()`` can answer without waiting for more input (so work on the lines read so far
    /// need not wait either).
    func hasBufferedLine() -> Bool {
        switch source {
        case .file(let buffer): buffer.hasBufferedLine()
        case .standardInput(let io): io.hasBufferedStandardInputLine()
        }
    }

    /// Whether a line holds nothing but spaces and tabs.
    static func isBlank(_ line: [UInt8]) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }
}

/// Typed-data documents (`eth_signTypedData_v4` JSON).
enum TypedDataInput {
    /// The `FILE|-` positional of typed-data commands.
    static let positional = PositionalSpec.positional(
        "FILE|-", optional: true, help: "typed-data JSON file; - or no argument reads stdin")

    /// Reads and checks the typed data named by the first positional.
    ///
    /// - Throws: 65 with a file error (`<path>: no such file`) or the typed-data error with its
    ///   JSON path (`message.assets[0].addr: invalid address "0x12"`).
    static func read(_ context: CommandContext) throws(CommandFailure) -> TypedData {
        let text = try InputSource(positional: context.options.positional(0)).readText(io: context.io)
        return try parse(text)
    }

    /// Parses typed-data JSON text.
    static func parse(_ text: String) throws(CommandFailure) -> TypedData {
        do { return try TypedData(jsonText: text) } catch { throw .invalidInput(error.description) }
    }

    /// The hashes of one line of `--jsonl` input: the bytes straight to the worker's `hasher` (which
    /// answers as ``TypedData/hashes(jsonUTF8:)`` does: it checks UTF-8 itself, and parses only the message
    /// of a document whose schema it has compiled before); when that fails, the line goes the way of a
    /// document (byte-order mark dropped, UTF-8 checked, parsed, hashed), so errors read the same.
    static func hashes(line: [UInt8], number: Int, hasher: RepeatedDocumentHasher) throws(CommandFailure)
        -> TypedDataHashes
    {
        if let hashes = try? hasher.hashes(jsonUTF8: line) { return hashes }
        return try hashes(parse(InputSource.text(line, label: "line \(number)")))
    }

    /// The chain a document is signed for: its `domain.chainId`, else 1 (the digest does not depend on it).
    static func chain(of typedData: TypedData) throws(CommandFailure) -> UInt256 {
        do { return try typedData.domainChainId() ?? 1 } catch { throw .invalidInput(error.description) }
    }

    /// Domain separator, struct hash and digest.
    static func hashes(_ typedData: TypedData) throws(CommandFailure) -> TypedDataHashes {
        do { return try typedData.hashes() } catch { throw .invalidInput(error.description) }
    }
}

/// `--text S | --hex 0x…`: the bytes of an EIP-191 personal message.
enum MessageInput {
    /// The two message flags.
    static let flags: [FlagSpec] = [
        .option("--text", value: "S", help: "the message as UTF-8 text, signed as is"),
        .option("--hex", value: "0x…", help: "the message as strict 0x-hex bytes (\"0x\" is the empty message)"),
    ]

    /// The synopsis fragment.
    static let synopsis = "(--text S | --hex 0x…)"

    /// The message bytes.
    ///
    /// - Throws: 65 unless exactly one of `--text`/`--hex` is given, or for malformed hex
    ///   (`--hex: odd number of hex digits`).
    static func bytes(_ options: ParsedOptions) throws(CommandFailure) -> [UInt8] {
        let (flag, value) = try options.exactlyOne(of: ["--text", "--hex"])
        if flag == "--text" { return Array(value.utf8) }
        do { return try Hex.decode(value) } catch { throw .invalidInput("--hex: \(error)") }
    }
}

/// `--signature 0x…`: a 65-byte r‖s‖v signature.
enum SignatureInput {
    /// The flag.
    static let flag = FlagSpec.option(
        "--signature", value: "0x…", help: "the 65-byte signature r‖s‖v (v = 27/28 or 0/1)")

    /// Parses the required `--signature`.
    ///
    /// - Throws: 65 when missing or malformed (`--signature: signature must be 65 bytes, got 64`).
    static func read(_ options: ParsedOptions) throws(CommandFailure) -> RecoverableSignature {
        let text = try options.required("--signature", "(the 0x-hex signature to recover from)")
        do {
            return try RecoverableSignature(hex: text)
        } catch {
            if case .hex(let hexError) = error { throw .invalidInput("--signature: invalid hex: \(hexError)") }
            throw .invalidInput("--signature: \(error)")
        }
    }

    /// The address that signed `digest`.
    ///
    /// - Throws: 65 `--signature: …` when no key recovers.
    static func recover(_ digest: Digest32, _ signature: RecoverableSignature) throws(CommandFailure) -> Address {
        do { return try ECDSA.recoverAddress(prehash: digest, signature: signature) } catch {
            throw .invalidInput("--signature: \(error)")
        }
    }
}
