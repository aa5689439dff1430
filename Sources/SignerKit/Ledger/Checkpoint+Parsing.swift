import EthereumPrimitives

extension Checkpoint {
    /// Reads a checkpoint body strictly: exactly the lines ``body`` writes, each in its one spelling.
    ///
    /// Only read the body of a note whose signature verified (``SignedNote/verify(keyName:address:)`` does
    /// both); the text of an unverified note must be ignored.
    ///
    /// - Throws: ``CheckpointError/missingFinalNewline``, ``CheckpointError/missingLine(line:field:)`` or
    ///   ``CheckpointError/malformedLine(line:field:text:)`` naming the line.
    public init(parsing body: String) throws(CheckpointError) {
        guard body.utf8.last == 0x0A else { throw .missingFinalNewline }
        let lines = NoteText.lines(body)
        func line(_ number: Int, _ field: CheckpointError.Field) throws(CheckpointError) -> Substring {
            guard number <= lines.count else { throw .missingLine(line: number, field: field) }
            return lines[number - 1]
        }
        func malformed(_ number: Int, _ field: CheckpointError.Field) -> CheckpointError {
            .malformedLine(line: number, field: field, text: EchoedText.abbreviated(lines[number - 1]))
        }

        let origin = try line(1, .origin)
        guard !origin.isEmpty, !NoteText.hasControlCharacter(origin) else { throw malformed(1, .origin) }
        guard let size = NoteText.decimal(try line(2, .size).utf8).flatMap({ Int(exactly: $0) }) else {
            throw malformed(2, .size)
        }
        guard let rootBytes = StandardBase64.decode(try line(3, .rootHash)), let root = Bytes32(rootBytes) else {
            throw malformed(3, .rootHash)
        }
        var time: Int64?
        if lines.count >= 4 {
            let prefix = "time ".utf8
            guard lines[3].utf8.starts(with: prefix) else { throw malformed(4, .extension) }
            guard let seconds = NoteText.decimal(lines[3].utf8.dropFirst(prefix.count)) else {
                throw malformed(4, .time)
            }
            time = seconds
        }
        guard lines.count <= 4 else { throw malformed(5, .extension) }
        try self.init(origin: String(origin), size: size, root: root, time: time)
    }
}
