import EIP712
import EthereumPrimitives

/// `signerkit typed-data hash|sign`: EIP-712 (`eth_signTypedData_v4`) documents.
enum TypedDataCommands {
    /// The `typed-data` group.
    static let command = Command.group(
        "typed-data", summary: "Hash or sign EIP-712 typed data (eth_signTypedData_v4 JSON).",
        subcommands: [hash, sign])

    /// `typed-data hash [--json] [--jsonl] [FILE|-]`.
    static let hash = Command.leaf(
        "hash", summary: "Print the EIP-712 digest of typed data as 0x-hex.",
        details: """
            With --jsonl, each non-blank input line is one typed-data JSON object and each gets one output
            line: its digest, or "error: <message>". The exit status is then 1 if any line failed,
            else 0. \(linesDetails)
            """,
        flags: [
            .flag("--json", help: "print {\"domainSeparator\",\"structHash\",\"digest\"} as one JSON line"),
            jsonlFlag, ThreadsOption.flag,
        ],
        positionals: [TypedDataInput.positional],
        run: runHash)

    /// `--jsonl`.
    static let jsonlFlag = FlagSpec.flag(
        "--jsonl", help: "read one typed-data JSON object per line; print one result line each")

    /// How `--jsonl` input is worked on.
    static let linesDetails = """
        Lines are worked on by --threads workers (default: the number of cores); results are written in input
        order as they are ready, so output streams while input is still being read, and memory stays bounded
        for inputs of any size. Schemas seen before are not compiled again.
        """

    /// `typed-data sign KEY-SOURCE [--jsonl] [FILE|-]`.
    static let sign = Command.leaf(
        "sign", summary: "Sign the EIP-712 digest of typed data; print the 65-byte signature r‖s‖v (v = 27/28).",
        details: """
            With --jsonl, each non-blank input line is one typed-data JSON object and each gets one output
            line: its signature, or "error: <message>". The exit status is then 1 if any line failed,
            else 0. \(linesDetails)

            \(SigningKeyOptions.details)
            """,
        flags: SigningKeyOptions.flags + [jsonlFlag, ThreadsOption.flag],
        positionals: [TypedDataInput.positional],
        run: runSign)

    /// Prints the digest, the three hashes as JSON, or one line per `--jsonl` input line.
    static func runHash(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let json = context.options.has("--json")
        if context.options.has(jsonlFlag.name) {
            return try await eachLine(context) { (line, number, hasher) throws(CommandFailure) in
                let hashes = try TypedDataInput.hashes(line: line, number: number, hasher: hasher)
                return json ? jsonText(hashes) : hashes.digest.hex
            }
        }
        try refuseThreadsWithoutLines(context)
        let hashes = try TypedDataInput.hashes(TypedDataInput.read(context))
        context.printLine(json ? jsonText(hashes) : hashes.digest.hex)
        return .success
    }

    /// Signs the digest with the key from ``loadSigningKey(_:io:)``, or that of every `--jsonl` line.
    static func runSign(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        if try SigningKeyOptions.checkPresent(context.options) == .remote {
            guard !context.options.has(jsonlFlag.name) else {
                throw context.usageError("\(jsonlFlag.name) signs with a key, not with \(RemoteSignerOptions.url.name)")
            }
            try refuseThreadsWithoutLines(context)
            let text = try InputSource(positional: context.options.positional(0)).readText(io: context.io)
            let chain = try TypedDataInput.chain(of: TypedDataInput.parse(text))
            let document: JSONValue
            do { document = try JSONValue(parsing: text) } catch { throw .invalidInput(error.description) }
            context.printLine(
                try await RemoteSigning.result(.signTypedDataV4, chain: chain, context.options, io: context.io) {
                    .array([.string($0.checksummed), document])
                })
            return .success
        }
        if context.options.has(jsonlFlag.name) {
            let signer = try await loadSigningKey(context.options, io: context.io)
            return try await eachLine(context) { (line, number, hasher) throws(CommandFailure) in
                let hashes = try TypedDataInput.hashes(line: line, number: number, hasher: hasher)
                return try await SignerKitCommands.sign(hashes.digest, with: signer).hex
            }
        }
        try refuseThreadsWithoutLines(context)
        let hashes = try TypedDataInput.hashes(TypedDataInput.read(context))
        let signer = try await loadSigningKey(context.options, io: context.io)
        let signature = try await SignerKitCommands.sign(hashes.digest, with: signer)
        context.printLine(signature.hex)
        return .success
    }

    /// Runs `answer` on each non-blank input line (its bytes, its number and the hasher of the worker it
    /// is on; `--threads` at once) and prints the answers in input order; a failing line prints `error: …`
    /// and makes the status 1.
    static func eachLine(
        _ context: CommandContext,
        answer: @escaping @Sendable ([UInt8], Int, RepeatedDocumentHasher) async throws(CommandFailure) -> String
    ) async throws(CommandFailure) -> ExitCode {
        let pipeline = OrderedLinePipeline(workers: try ThreadsOption.count(context.options))
        let source = InputSource(positional: context.options.positional(0))
        let io = context.io
        let anyFailed = try await pipeline.run(source.lines(io: io), makeContext: { RepeatedDocumentHasher() }) {
            line, hasher in
            if LineReader.isBlank(line.bytes) { return LineOutcome(text: nil, failed: false) }
            do throws(CommandFailure) {
                return LineOutcome(text: try await answer(line.bytes, line.number, hasher), failed: false)
            } catch {
                return LineOutcome(text: "error: \(TextSafety.singleLine(error.message))", failed: true)
            }
        } emit: { text in
            io.writeStandardOutput(text)
        }
        return anyFailed ? .failure : .success
    }

    /// `--threads` only means something with `--jsonl`.
    static func refuseThreadsWithoutLines(_ context: CommandContext) throws(CommandFailure) {
        if context.options.has(ThreadsOption.flag.name) {
            throw context.usageError("--threads needs --jsonl")
        }
    }

    /// `{"domainSeparator":"0x…","structHash":"0x…","digest":"0x…"}`.
    static func jsonText(_ hashes: TypedDataHashes) -> String {
        "{\"domainSeparator\":\"\(hashes.domainSeparator.hex)\",\"structHash\":\"\(hashes.structHash.hex)\",\"digest\":\"\(hashes.digest.hex)\"}"
    }
}
