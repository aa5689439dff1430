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
            line: its digest, or "error: <message>". The exit status is then 1 if any line failed, else 0.
            """,
        flags: [
            .flag("--json", help: "print {\"domainSeparator\",\"structHash\",\"digest\"} as one JSON line"),
            .flag("--jsonl", help: "read one typed-data JSON object per line; print one result line each"),
        ],
        positionals: [TypedDataInput.positional],
        run: runHash)

    /// `typed-data sign KEY-SOURCE [FILE|-]`.
    static let sign = Command.leaf(
        "sign", summary: "Sign the EIP-712 digest of typed data; print the 65-byte signature r‖s‖v (v = 27/28).",
        details: SigningKeyOptions.details,
        flags: SigningKeyOptions.flags,
        positionals: [TypedDataInput.positional],
        run: runSign)

    /// Prints the digest, the three hashes as JSON, or one line per `--jsonl` input line.
    static func runHash(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let json = context.options.has("--json")
        let source = InputSource(positional: context.options.positional(0))
        if context.options.has("--jsonl") {
            return try hashLines(source, json: json, context: context)
        }
        let hashes = try TypedDataInput.hashes(TypedDataInput.read(context))
        context.printLine(json ? jsonText(hashes) : hashes.digest.hex)
        return .success
    }

    /// Hashes each non-blank line; a bad line prints `error: …` and makes the status 1.
    static func hashLines(_ source: InputSource, json: Bool, context: CommandContext) throws(CommandFailure) -> ExitCode
    {
        var lines = try source.lines(io: context.io)
        var anyFailed = false
        var lineNumber = 0
        while let line = try lines.next() {
            lineNumber += 1
            if LineReader.isBlank(line) { continue }
            let output: String
            do throws(CommandFailure) {
                let text = try InputSource.text(line, label: "line \(lineNumber)")
                let hashes = try TypedDataInput.hashes(TypedDataInput.parse(text))
                output = json ? jsonText(hashes) : hashes.digest.hex
            } catch {
                anyFailed = true
                output = "error: \(TextSafety.singleLine(error.message))"
            }
            context.printLine(output)
        }
        return anyFailed ? .failure : .success
    }

    /// Signs the digest with the key from ``loadSigningKey(_:io:)``.
    static func runSign(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        try SigningKeyOptions.checkPresent(context.options)
        let hashes = try TypedDataInput.hashes(TypedDataInput.read(context))
        let signer = try await loadSigningKey(context.options, io: context.io)
        let signature = try await SignerKitCommands.sign(hashes.digest, with: signer)
        context.printLine(signature.hex)
        return .success
    }

    /// `{"domainSeparator":"0x…","structHash":"0x…","digest":"0x…"}`.
    static func jsonText(_ hashes: TypedDataHashes) -> String {
        "{\"domainSeparator\":\"\(hashes.domainSeparator.hex)\",\"structHash\":\"\(hashes.structHash.hex)\",\"digest\":\"\(hashes.digest.hex)\"}"
    }
}
