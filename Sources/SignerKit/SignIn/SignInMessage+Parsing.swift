import EthereumPrimitives

extension SignInMessage {
    /// Parses an EIP-4361 message strictly, by the specification's ABNF.
    ///
    /// Lines end with LF only; the header is `[scheme "://"] domain " wants you to sign in with your Ethereum
    /// account:"`; the address is in EIP-55 checksum form; an empty line, the optional statement and another
    /// empty line follow (so a message without a statement has two empty lines before `URI:`); then `URI`,
    /// `Version` (`1`), `Chain ID`, `Nonce`, `Issued At` and, in this order, the optional `Expiration Time`,
    /// `Not Before`, `Request ID` and `Resources:` with its `- URI` lines; nothing after the last field, not
    /// even a line break.
    ///
    /// - Throws: ``SignInMessageError`` naming the 1-based line, the field and the problem.
    public init(parsing text: String) throws(SignInMessageError) {
        try self.init(bytes: Array(text.utf8))
    }

    /// Parses the bytes of a `personal_sign` message (see ``init(parsing:)``).
    ///
    /// - Throws: ``SignInMessageError`` naming the 1-based line, the field and the problem.
    public init(bytes: [UInt8]) throws(SignInMessageError) {
        guard bytes.count <= Self.maximumLength else {
            throw Self.fail(
                .message, nil, "\(bytes.count) bytes, more than the \(Self.maximumLength) accepted")
        }
        var reader = LineReader(bytes)
        let header = try reader.header()
        let address = try reader.address()
        try reader.emptyLine(after: "the address")
        let statement = try reader.statement()
        let uri = try reader.field(.uri)
        try Self.checkURI(uri.value, field: .uri, line: uri.line)
        let version = try reader.field(.version)
        guard version.value.elementsEqual(Self.version.utf8) else {
            throw Self.fail(
                .version, version.line, "\(SignInMessageError.quote(version.value)) (only version \"1\" is defined)")
        }
        let chainId = try Self.chainId(try reader.field(.chainId))
        let nonce = try reader.field(.nonce)
        try Self.checkNonce(nonce.value, line: nonce.line)
        let issuedAt = try Self.dateTime(try reader.field(.issuedAt))
        let expirationTime = try reader.optionalField(.expirationTime).map { (f) throws(SignInMessageError) in
            try Self.dateTime(f)
        }
        let notBefore = try reader.optionalField(.notBefore).map { (f) throws(SignInMessageError) in
            try Self.dateTime(f)
        }
        let requestId = try reader.optionalField(.requestId)
        if let requestId { try Self.checkRequestId(requestId.value, line: requestId.line) }
        let resources = try reader.resources()
        try reader.end()

        try self.init(
            scheme: header.scheme.map(Self.string), domain: Self.string(header.domain), address: address,
            statement: statement.map(Self.string), uri: Self.string(uri.value), chainId: chainId,
            nonce: Self.string(nonce.value), issuedAt: issuedAt, expirationTime: expirationTime, notBefore: notBefore,
            requestId: requestId.map { Self.string($0.value) }, resources: resources)
        guard self.bytes == bytes else {
            // Every check above makes the written text equal to the parsed one; this guards that promise.
            throw Self.fail(.message, nil, "the message does not write back to the same bytes")
        }
    }

    /// ASCII bytes (checked by the field grammar) as a string.
    private static func string(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    private static func chainId(_ field: LineReader.FieldValue) throws(SignInMessageError) -> UInt256 {
        let digits = field.value
        guard !digits.isEmpty else { throw fail(.chainId, field.line, "empty (expected decimal digits)") }
        if let bad = digits.first(where: { !URIGrammar.isDigit($0) }) {
            throw fail(
                .chainId, field.line,
                "\(URIGrammar.describe(bad)) in \(SignInMessageError.quote(digits)) (expected decimal digits)")
        }
        guard digits.count == 1 || digits.first != UInt8(ascii: "0") else {
            throw fail(.chainId, field.line, "\(SignInMessageError.quote(digits)) has a leading zero")
        }
        guard let value = try? UInt256(text: string(digits)) else {
            throw fail(.chainId, field.line, "\(SignInMessageError.quote(digits)) does not fit in 256 bits")
        }
        return value
    }

    private static func dateTime(_ field: LineReader.FieldValue) throws(SignInMessageError) -> RFC3339DateTime {
        do { return try RFC3339DateTime(string(field.value)) } catch {
            throw fail(field.field, field.line, "\(SignInMessageError.quote(field.value)) is \(error)")
        }
    }
}

/// Reads an EIP-4361 message line by line, naming the 1-based line of every problem.
private struct LineReader {
    /// The value of a `Key: value` line.
    struct FieldValue {
        let field: SignInMessageError.Field
        let value: ArraySlice<UInt8>
        let line: Int
    }

    /// The lines, split on LF (the last one possibly empty when the text ends with LF).
    private let lines: [ArraySlice<UInt8>]
    /// The index of the next line.
    private var next = 0
    /// Whether the text ends with LF.
    private let endsWithLineBreak: Bool

    init(_ bytes: [UInt8]) {
        lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        endsWithLineBreak = bytes.last == 0x0A
    }

    /// The 1-based number of the next line.
    private var lineNumber: Int { next + 1 }

    private var atEnd: Bool { next >= lines.count }

    /// The next line, refusing a carriage return (EIP-4361 lines end with LF alone).
    private mutating func take(_ field: SignInMessageError.Field, expecting: String) throws(SignInMessageError)
        -> ArraySlice<UInt8>
    {
        guard !atEnd else {
            throw SignInMessage.fail(field, nil, "missing: the message ends where \(expecting) belongs")
        }
        let line = lines[next]
        if line.contains(0x0D) {
            throw SignInMessage.fail(field, lineNumber, "carriage return in the line (EIP-4361 lines end with LF only)")
        }
        next += 1
        return line
    }

    /// `[ scheme "://" ] domain " wants you to sign in with your Ethereum account:"`.
    mutating func header() throws(SignInMessageError) -> (scheme: ArraySlice<UInt8>?, domain: ArraySlice<UInt8>) {
        let line = try take(.header, expecting: "the header")
        let suffix = Array(SignInMessage.headerSuffix.utf8)
        guard line.count > suffix.count, line.suffix(suffix.count).elementsEqual(suffix) else {
            throw SignInMessage.fail(
                .header, 1,
                "\(SignInMessageError.quote(line)) is not \"[scheme://]domain\(SignInMessage.headerSuffix)\"")
        }
        let origin = line.dropLast(suffix.count)
        var scheme: ArraySlice<UInt8>?
        var domain = origin
        if let separator = Self.find([0x3A, 0x2F, 0x2F], in: origin) {
            scheme = origin[origin.startIndex..<separator]
            domain = origin[(separator + 3)...]
        }
        if let scheme { try SignInMessage.checkScheme(scheme, line: 1) }
        try SignInMessage.checkDomain(domain, line: 1)
        return (scheme, domain)
    }

    /// The address line, in EIP-55 checksum form.
    mutating func address() throws(SignInMessageError) -> Address {
        let number = lineNumber
        let line = try take(.address, expecting: "the address")
        let text = String(decoding: line, as: UTF8.self)
        let address: Address
        do { address = try Address(text) } catch {
            guard case .badChecksum = error, let lower = try? Address(text.lowercased()) else {
                throw SignInMessage.fail(
                    .address, number, "\(SignInMessageError.quote(line)) is not \"0x\" and 40 hex digits")
            }
            address = lower
        }
        guard address.checksummed.utf8.elementsEqual(line) else {
            throw SignInMessage.fail(
                .address, number,
                "\(SignInMessageError.quote(line)) is not in EIP-55 checksum form (expected \(address.checksummed))")
        }
        return address
    }

    /// An empty line.
    mutating func emptyLine(after what: String) throws(SignInMessageError) {
        let number = lineNumber
        let line = try take(.message, expecting: "an empty line after \(what)")
        guard line.isEmpty else {
            throw SignInMessage.fail(
                .message, number, "expected an empty line after \(what), found \(SignInMessageError.quote(line))")
        }
    }

    /// `[ statement LF ] LF`: `nil` when the two lines after the address's empty line are both empty.
    mutating func statement() throws(SignInMessageError) -> ArraySlice<UInt8>? {
        let number = lineNumber
        let line = try take(.statement, expecting: "the statement or an empty line")
        // Two empty lines and then anything but a third: no statement (an empty statement is a third).
        if line.isEmpty, atEnd || !lines[next].isEmpty { return nil }
        if line.starts(with: Array("URI: ".utf8)), !atEnd, lines[next].starts(with: Array("Version: ".utf8)) {
            throw SignInMessage.fail(
                .message, number,
                "one empty line before \"URI:\" where EIP-4361 puts two when there is no statement")
        }
        try SignInMessage.checkStatement(line, line: number)
        try emptyLine(after: "the statement")
        return line
    }

    /// The value of the required `Key: value` line of `field`.
    mutating func field(_ field: SignInMessageError.Field) throws(SignInMessageError) -> FieldValue {
        let number = lineNumber
        let prefix = Array((field.rawValue + ": ").utf8)
        if !atEnd, lines[next].isEmpty, endsWithLineBreak, next == lines.count - 1 {
            throw SignInMessage.fail(
                field, nil, "missing: the message ends (after a line break) where \"\(field.rawValue): …\" belongs")
        }
        let line = try take(field, expecting: "\"\(field.rawValue): …\"")
        guard line.starts(with: prefix) else {
            throw SignInMessage.fail(
                field, number, "expected \"\(field.rawValue): …\", found \(SignInMessageError.quote(line))")
        }
        return FieldValue(field: field, value: line.dropFirst(prefix.count), line: number)
    }

    /// The value of an optional `Key: value` line of `field`, if the next line is one.
    mutating func optionalField(_ field: SignInMessageError.Field) throws(SignInMessageError) -> FieldValue? {
        guard !atEnd, lines[next].starts(with: Array("\(field.rawValue): ".utf8)) else { return nil }
        return try self.field(field)
    }

    /// `Resources:` and its `- URI` lines, if the next line is `Resources:`.
    mutating func resources() throws(SignInMessageError) -> [String]? {
        guard !atEnd, lines[next].elementsEqual("Resources:".utf8) else { return nil }
        next += 1
        var resources: [String] = []
        while !atEnd {
            if lines[next].isEmpty, endsWithLineBreak, next == lines.count - 1 { break }
            let number = lineNumber
            let line = try take(.resources, expecting: "a resource")
            guard line.starts(with: [0x2D, 0x20]) else {
                throw SignInMessage.fail(
                    .resources, number,
                    "expected \"- \" and a URI (resources are the last lines), found \(SignInMessageError.quote(line))")
            }
            let uri = line.dropFirst(2)
            try SignInMessage.checkURI(uri, field: .resources, line: number)
            resources.append(String(decoding: uri, as: UTF8.self))
        }
        return resources
    }

    /// Nothing may follow the last field.
    func end() throws(SignInMessageError) {
        guard !atEnd else { return }
        let line = lines[next]
        if line.isEmpty, endsWithLineBreak, next == lines.count - 1 {
            throw SignInMessage.fail(
                .message, next, "line break at the end (an EIP-4361 message ends with its last field)")
        }
        let optional: [SignInMessageError.Field] = [.expirationTime, .notBefore, .requestId]
        let keyed: [SignInMessageError.Field] = [.uri, .version, .chainId, .nonce, .issuedAt] + optional + [.resources]
        let known = keyed.first { line.starts(with: Array(($0.rawValue + ":").utf8)) }
        if let known {
            if known != .resources, !line.starts(with: Array((known.rawValue + ": ").utf8)) {
                throw SignInMessage.fail(
                    known, lineNumber,
                    "expected \"\(known.rawValue): …\" (a space after the colon), found \(SignInMessageError.quote(line))"
                )
            }
            if known == .resources, !line.elementsEqual("Resources:".utf8) {
                throw SignInMessage.fail(
                    known, lineNumber,
                    "expected \"Resources:\" alone on its line, found \(SignInMessageError.quote(line))")
            }
            let order =
                optional.contains(known) || known == .resources
                ? "out of order or repeated (the optional fields come in the order Expiration Time, Not Before, Request ID, Resources)"
                : "repeated"
            throw SignInMessage.fail(known, lineNumber, "\"\(known.rawValue)\" line \(order)")
        }
        throw SignInMessage.fail(
            .message, lineNumber, "unexpected line \(SignInMessageError.quote(line)) after the last field")
    }

    /// The first index of `needle` in `haystack`.
    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index + needle.count <= haystack.endIndex {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
