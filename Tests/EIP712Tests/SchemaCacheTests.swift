import EIP712
import EthereumPrimitives
import Testing

@Suite("Schema cache")
struct SchemaCacheTests {
    static func document(typeName: String, value: Int, spacing: String = "") -> String {
        """
        {"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"}],\
        "\(typeName)":[{"name":"amount",\(spacing)"type":"uint256"}]},"primaryType":"\(typeName)",\
        "domain":{"name":"cache","chainId":1},"message":{"amount":\(value)}}
        """
    }

    @Test("a hit gives the digest compiling gives; whitespace or a new domain is a new entry; errors are not cached")
    func hitsAndMisses() throws {
        let cache = EIP712SchemaCache(maximumEntries: 16, maximumBytes: 1 << 20)
        for value in 0..<5 {
            let typedData = try TypedData(jsonText: Self.document(typeName: "Payment", value: value))
            let cached = try cache.compiled(typedData).hashes(message: typedData.message)
            #expect(cached == (try typedData.compileUncached().hashes(message: typedData.message)))
        }
        #expect(cache.statistics == .init(entries: 1, bytes: cache.statistics.bytes, hits: 4, misses: 1))
        let spaced = try TypedData(jsonText: Self.document(typeName: "Payment", value: 1, spacing: " "))
        #expect(try cache.compiled(spaced).hashes(message: spaced.message) == (try spaced.hashes()))
        #expect(cache.statistics.entries == 2)
        let otherDomain = try TypedData(
            jsonText: Self.document(typeName: "Payment", value: 1).replacingOccurrences(
                of: #""chainId":1}"#, with: #""chainId":2}"#))
        let separators = try [cache.compiled(otherDomain).domainSeparator, cache.compiled(spaced).domainSeparator]
        #expect(separators[0] != separators[1])
        #expect(cache.statistics.entries == 3)
        let broken = try TypedData(
            jsonText: Self.document(typeName: "Payment", value: 1).replacingOccurrences(
                of: "uint256\"}]}", with: "uint257\"}]}"))
        #expect(throws: EIP712Error.self) { try cache.compiled(broken) }
        #expect(throws: EIP712Error.self) { try cache.compiled(broken) }
        #expect(cache.statistics.entries == 3)
        cache.removeAll()
        #expect(cache.statistics == .init(entries: 0, bytes: 0, hits: 0, misses: 0))
    }

    @Test("100,000 distinct schemas never grow the cache past its bounds; recent ones stay, old ones go")
    func boundedUnderDistinctSchemas() throws {
        let cache = EIP712SchemaCache(maximumEntries: 64, maximumBytes: 48 * 1024)
        var largest = 0
        for index in 0..<100_000 {
            let typedData = try TypedData(jsonText: Self.document(typeName: "T\(index)", value: index))
            let digest = try cache.compiled(typedData).digest(message: typedData.message)
            if index % 9_973 == 0 {
                #expect(digest == (try typedData.compileUncached().digest(message: typedData.message)))
            }
            let statistics = cache.statistics
            #expect(statistics.entries <= 64 && statistics.bytes <= 48 * 1024)
            largest = max(largest, statistics.entries)
        }
        #expect(largest > 1)
        let statistics = cache.statistics
        #expect(statistics.misses == 100_000 && statistics.hits == 0)
        // The most recent schema is still there; the first one is long gone.
        _ = try cache.compiled(TypedData(jsonText: Self.document(typeName: "T99999", value: 7)))
        #expect(cache.statistics.hits == 1)
        _ = try cache.compiled(TypedData(jsonText: Self.document(typeName: "T0", value: 7)))
        #expect(cache.statistics.hits == 1)
    }

    @Test("a cache of zero entries compiles every time and holds nothing")
    func disabled() throws {
        let cache = EIP712SchemaCache(maximumEntries: 0, maximumBytes: 0)
        let typedData = try TypedData(jsonText: Self.document(typeName: "Payment", value: 3))
        #expect(try cache.compiled(typedData).digest(message: typedData.message) == (try typedData.digest()))
        _ = try cache.compiled(typedData)
        #expect(cache.statistics.entries == 0 && cache.statistics.misses == 2)
    }
}
