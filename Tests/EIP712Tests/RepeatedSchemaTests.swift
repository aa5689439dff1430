import EthereumPrimitives
import SignerKitTestSupport
import Testing

@testable import EIP712

/// `TypedData.hashes(jsonUTF8:)`: a document whose schema members were compiled before has only its
/// message parsed, and every answer (hashes or error) is the full parse's.
@Suite("Typed data from bytes: repeated schemas")
struct RepeatedSchemaTests {
    /// The full path: parse everything, then hash.
    static func fullParse(_ bytes: [UInt8]) -> Result<TypedDataHashes, EIP712Error> {
        Result { () throws(EIP712Error) -> TypedDataHashes in
            let document: JSONDocument
            do throws(JSONParseError) { document = try JSONDocument(bytes: bytes) } catch {
                throw EIP712Error(.invalidJSON(error))
            }
            return try TypedData(json: document.root).hashes()
        }
    }

    static func viaBytes(_ bytes: [UInt8]) -> Result<TypedDataHashes, EIP712Error> {
        Result { () throws(EIP712Error) -> TypedDataHashes in try TypedData.hashes(jsonUTF8: bytes) }
    }

    static func sameAnswer(_ a: Result<TypedDataHashes, EIP712Error>, _ b: Result<TypedDataHashes, EIP712Error>)
        -> Bool
    {
        switch (a, b) {
        case (.success(let x), .success(let y)): x.digest == y.digest && x.structHash == y.structHash
        case (.failure(let x), .failure(let y)): x.description == y.description
        default: false
        }
    }

    @Test("every eip712.jsonl row: matched against its own compiled schema, only the message parsed")
    func vectors() throws {
        for row in try Vectors.rows("eip712.jsonl") {
            let name = row["name"]?.stringValue ?? "?"
            let bytes = Array(try #require(row["typedData"]).serialized.utf8)
            let expected = try #require(row["digest"]?.stringValue)
            // The matcher alone, against a schema built here (the shared cache's recent list is shared with
            // tests running in parallel).
            let typedData = try TypedData(json: JSONDocument(bytes: bytes).root)
            let key = EIP712SchemaCache.key(typedData)
            let schema = EIP712SchemaCache.RecentSchema(
                key: key, hash: EIP712SchemaCache.hash(key), compiled: try typedData.compileUncached())
            let range = try #require(
                bytes.withUnsafeBufferPointer { RepeatedSchemaMatch.messageRange(in: $0, schema: schema) },
                "\(name): the fast path does not recognise a plain document")
            let message = try JSONDocument(bytes: Array(bytes[range]))
            #expect(try schema.compiled.hashes(message: message.root).digest.hex == expected, "\(name)")
            // And the public entry point, cold and warm.
            for round in 0..<2 {
                #expect(try TypedData.hashes(jsonUTF8: bytes).digest.hex == expected, "\(name), round \(round)")
            }
        }
    }

    @Test("hand-made shapes: duplicate or unknown members, escapes, trailing bytes, deep messages")
    func shapes() throws {
        let mail = try #require(
            try Vectors.rows("eip712.jsonl").first { $0["name"]?.stringValue == "eip712-spec-mail" })
        let object = try #require(mail["typedData"])
        let types = try #require(object["types"]).serialized
        let domain = try #require(object["domain"]).serialized
        let message = try #require(object["message"]).serialized
        let base = #"{"types":\#(types),"primaryType":"Mail","domain":\#(domain),"message":\#(message)}"#
        _ = try TypedData.hashes(jsonUTF8: Array(base.utf8))  // compiled once: the fast path can answer
        var deep = "0"
        for _ in 0..<511 { deep = "[\(deep)]" }
        let cases = [
            base,
            " \n\t" + base + " \r\n",
            base + "x",
            base + "{}",
            base.replacingOccurrences(of: #""message":"#, with: #""message":1,"message":"#),
            base.replacingOccurrences(of: #""primaryType":"Mail""#, with: #""primaryType":"Ma\u0069l""#),
            base.replacingOccurrences(of: #""primaryType":"Mail""#, with: #""primaryType":"Mail","extra":[1,2]"#),
            base.replacingOccurrences(of: #"{"types""#, with: #"{"ty\u0070es""#),
            base.replacingOccurrences(of: #""message":\#(message)"#, with: #""message":\#(deep)"#),
            base.replacingOccurrences(of: #""message":\#(message)"#, with: #""message":[\#(deep)]"#),
            base.replacingOccurrences(of: #""message":\#(message)"#, with: #""message":{"from":1,"from":2}"#),
            base.replacingOccurrences(of: #""message":\#(message)"#, with: #""message":"\#u{FFFD}""#),
            String(base.dropLast()),
            "[" + base + "]",
        ]
        for text in cases {
            let bytes = Array(text.utf8)
            #expect(Self.sameAnswer(Self.viaBytes(bytes), Self.fullParse(bytes)), "\(text.prefix(120))")
        }
        let invalidUTF8 = Array(base.utf8.dropLast(2)) + [0xFF, 0x22, 0x7D]
        #expect(Self.sameAnswer(Self.viaBytes(invalidUTF8), Self.fullParse(invalidUTF8)))
    }

    @Test("5,000 mutants of cached documents: the same answer as the full parse, every one")
    func mutants() throws {
        let documents =
            [try Vectors.roninOrder()]
            + (try Vectors.rows("eip712.jsonl").prefix(6).compactMap { $0["typedData"]?.serialized })
        let originals = documents.map { Array($0.utf8) }
        for bytes in originals { _ = try TypedData.hashes(jsonUTF8: bytes) }
        var generator = SplitMix64(seed: 0x7D12_2026)
        let alphabet = Array(#"{}[]",:\ "0123456789abcdefxyz-+.eE"#.utf8) + [0x00, 0x7F, 0xC3, 0xFF, 0x0A, 0x5C]
        for round in 0..<5_000 {
            var bytes = originals[round % originals.count]
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[position] = alphabet.randomElement(using: &generator) ?? 0x20
                case 1: bytes.insert(alphabet.randomElement(using: &generator) ?? 0x20, at: position)
                case 2: bytes.remove(at: position)
                default: bytes.insert(contentsOf: [0x20, 0x0A], at: position)
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            #expect(Self.sameAnswer(Self.viaBytes(bytes), Self.fullParse(bytes)), "round \(round)")
        }
    }

    @Test(
        "a worker's hasher: runs of one schema (past its private copy), alternating schemas and broken lines answer as the full parse"
    )
    func workerHasher() throws {
        let documents =
            [try Vectors.roninOrder()]
            + (try Vectors.rows("eip712.jsonl").prefix(6).compactMap { $0["typedData"]?.serialized })
        let originals = documents.map { Array($0.utf8) }
        var generator = SplitMix64(seed: 0x4A5E_2026)
        var stream: [[UInt8]] = []
        for round in 0..<600 {
            // Runs of 1 to 80 copies of one document, a mutant now and then, schemas taken in turn.
            let bytes = originals[round % originals.count]
            for _ in 0..<Int.random(in: 1...80, using: &generator) { stream.append(bytes) }
            if round % 5 == 0 {
                var mutant = bytes
                mutant[Int.random(in: 0..<mutant.count, using: &generator)] = 0x22
                stream.append(mutant)
            }
        }
        let hitsBefore = EIP712SchemaCache.shared.repeatedDocumentHits
        var answeredByPrivateCopy = 0
        do {
            let hasher = RepeatedDocumentHasher()
            for (index, bytes) in stream.enumerated() {
                if hasher.holdsPrivateCopy { answeredByPrivateCopy += 1 }
                let viaHasher = Result { () throws(EIP712Error) -> TypedDataHashes in
                    try hasher.hashes(jsonUTF8: bytes)
                }
                #expect(Self.sameAnswer(viaHasher, Self.fullParse(bytes)), "document \(index)")
            }
        }
        // Runs longer than 64 documents went on with the hasher's own compiled copy of their schema.
        #expect(answeredByPrivateCopy > 0)
        // The hasher is gone: every document it answered at hand has been reported, which is all but the
        // first of each run and the mutants (other suites running in parallel only add to the count).
        let notAtHand = 600 + 600 / 5
        #expect(EIP712SchemaCache.shared.repeatedDocumentHits - hitsBefore >= stream.count - notAtHand)
    }
}
