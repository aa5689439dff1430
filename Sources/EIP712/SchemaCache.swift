import EthereumPrimitives
import Synchronization

/// Compiled typed-data schemas and domain separators, cached by the exact source bytes of `types`,
/// `primaryType` and `domain`: a batch that repeats a few schemas thousands of times (a payment backend
/// signing orders, Pay options of one token) compiles each once.
///
/// Bounded in entries and in bytes (key text plus compiled schema); past either bound the least recently
/// used entry goes. A lookup costs one pass over the key bytes (a hash) and, on a hit, one comparison, so a
/// hostile stream of distinct schemas cannot grow the cache past its bounds nor slow hashing by more than
/// that. Only successful compilations are cached; a hit returns exactly what compiling again would.
public final class EIP712SchemaCache: Sendable {
    /// The process-wide cache used by ``TypedData/compile()`` (and so by hashing, the dispatcher and the
    /// command line): 512 entries, 32 MiB.
    public static let shared = EIP712SchemaCache(maximumEntries: 512, maximumBytes: 32 << 20)

    /// The most entries kept.
    public let maximumEntries: Int
    /// The most bytes kept (keys and compiled schemas, approximately).
    public let maximumBytes: Int

    private struct Entry {
        let key: [UInt8]
        let compiled: CompiledTypedData
        let bytes: Int
        var lastUse: UInt64
    }

    /// A schema compiled recently, as ``TypedData/hashes(jsonUTF8:)`` compares documents with it: the
    /// exact bytes of its three members.
    struct RecentSchema: Sendable {
        /// The cache key (``key(_:)``), sharing the entry's storage.
        let key: [UInt8]
        /// The key's hash.
        let hash: UInt64
        /// The `types` source.
        let types: [UInt8]
        /// The `primaryType` string.
        let primaryType: [UInt8]
        /// The `domain` source.
        let domain: [UInt8]
        /// What compiling them gave.
        let compiled: CompiledTypedData

        /// Whether `primaryType` stands in JSON as is (no quote, backslash or control character).
        var primaryTypeIsPlain: Bool { !primaryType.contains { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 } }

        init(key: [UInt8], hash: UInt64, compiled: CompiledTypedData) {
            self.key = key
            self.hash = hash
            self.compiled = compiled
            let parts = key.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
            types = parts.count > 0 ? Array(parts[0]) : []
            primaryType = parts.count > 1 ? Array(parts[1]) : []
            domain = parts.count > 2 ? Array(parts[2]) : []
        }
    }

    /// How many recently used schemas ``TypedData/hashes(jsonUTF8:)`` compares a document with.
    static let recentCount = 4

    private struct State {
        var entries: [UInt64: [Entry]] = [:]
        /// The schemas used last, most recent first (at most ``recentCount``).
        var recent: [RecentSchema] = []
        /// Documents answered by comparison with a recent schema (their hits are counted in `hits` too).
        var repeatedDocumentHits = 0
        var count = 0
        var bytes = 0
        var clock: UInt64 = 0
        var hits = 0
        var misses = 0
    }

    private let state = Mutex(State())

    /// A cache holding at most `maximumEntries` entries and about `maximumBytes` bytes (0 caches nothing).
    public init(maximumEntries: Int, maximumBytes: Int) {
        self.maximumEntries = max(0, maximumEntries)
        self.maximumBytes = max(0, maximumBytes)
    }

    /// What the cache holds and how it has been used.
    public struct Statistics: Sendable, Equatable {
        /// Entries held.
        public let entries: Int
        /// Bytes held (approximately).
        public let bytes: Int
        /// Lookups answered from the cache.
        public let hits: Int
        /// Lookups that compiled.
        public let misses: Int

        /// Statistics with these values.
        public init(entries: Int, bytes: Int, hits: Int, misses: Int) {
            self.entries = entries
            self.bytes = bytes
            self.hits = hits
            self.misses = misses
        }
    }

    /// The current statistics.
    public var statistics: Statistics {
        state.withLock { Statistics(entries: $0.count, bytes: $0.bytes, hits: $0.hits, misses: $0.misses) }
    }

    /// Removes every entry (statistics included).
    public func removeAll() {
        state.withLock { $0 = State() }
    }

    /// The compiled form of `typedData`, from the cache or compiled (and then cached).
    public func compiled(_ typedData: TypedData) throws(EIP712Error) -> CompiledTypedData {
        try schema(typedData).compiled
    }

    /// ``compiled(_:)`` with the key it is cached under, as documents are compared with it.
    func schema(_ typedData: TypedData) throws(EIP712Error) -> RecentSchema {
        let key = Self.key(typedData)
        let hash = Self.hash(key)
        if let found = lookup(key: key, hash: hash) { return RecentSchema(key: key, hash: hash, compiled: found) }
        let compiled = try typedData.compileUncached()
        insert(key: key, hash: hash, compiled: compiled)
        return RecentSchema(key: key, hash: hash, compiled: compiled)
    }

    /// The entry for `key` (see ``key(_:)``), or `nil` without compiling anything (not counted as a miss:
    /// the caller then compiles through ``compiled(_:)``, which counts it).
    func cached(key: [UInt8]) -> CompiledTypedData? {
        lookup(key: key, hash: Self.hash(key), countingMiss: false)
    }

    private func lookup(key: [UInt8], hash: UInt64, countingMiss: Bool = true) -> CompiledTypedData? {
        state.withLock { state -> CompiledTypedData? in
            state.clock &+= 1
            let now = state.clock
            guard var bucket = state.entries[hash], let slot = bucket.firstIndex(where: { $0.key == key }) else {
                if countingMiss { state.misses += 1 }
                return nil
            }
            state.hits += 1
            bucket[slot].lastUse = now
            state.entries[hash] = bucket
            Self.makeRecent(key: bucket[slot].key, hash: hash, compiled: bucket[slot].compiled, in: &state)
            return bucket[slot].compiled
        }
    }

    /// The schemas used last, most recent first.
    func recentSchemas() -> [RecentSchema] {
        state.withLock { $0.recent }
    }

    /// Records that `count` documents were answered by `schema` (hits; the entry counts as just used).
    func noteRepeatedDocuments(_ schema: RecentSchema, count: Int) {
        let hash = schema.hash
        state.withLock { state in
            state.clock &+= 1
            state.hits += count
            state.repeatedDocumentHits += count
            if var bucket = state.entries[hash], let slot = bucket.firstIndex(where: { $0.key == schema.key }) {
                bucket[slot].lastUse = state.clock
                state.entries[hash] = bucket
            }
            Self.makeRecent(key: schema.key, hash: hash, compiled: schema.compiled, in: &state)
        }
    }

    /// Documents answered by comparison with a recent schema so far.
    var repeatedDocumentHits: Int { state.withLock { $0.repeatedDocumentHits } }

    /// Moves the entry with `key` (the entry's own array, so comparisons are by storage first) to the front
    /// of the recent schemas.
    private static func makeRecent(key: [UInt8], hash: UInt64, compiled: CompiledTypedData, in state: inout State) {
        if let first = state.recent.first, first.hash == hash, first.key == key { return }
        if let index = state.recent.firstIndex(where: { $0.hash == hash && $0.key == key }) {
            let schema = state.recent.remove(at: index)
            state.recent.insert(schema, at: 0)
            return
        }
        state.recent.insert(RecentSchema(key: key, hash: hash, compiled: compiled), at: 0)
        if state.recent.count > recentCount { state.recent.removeLast() }
    }

    private func insert(key: [UInt8], hash: UInt64, compiled: CompiledTypedData) {
        let size = key.count + compiled.schema.approximateByteSize + 64
        guard maximumEntries > 0, size <= maximumBytes else { return }
        state.withLock { state in
            if state.entries[hash]?.contains(where: { $0.key == key }) == true { return }
            while state.count >= maximumEntries || state.bytes + size > maximumBytes {
                guard Self.evictLeastRecentlyUsed(&state) else { break }
            }
            state.clock &+= 1
            let entry = Entry(key: key, compiled: compiled, bytes: size, lastUse: state.clock)
            state.entries[hash, default: []].append(entry)
            Self.makeRecent(key: key, hash: hash, compiled: compiled, in: &state)
            state.count += 1
            state.bytes += size
        }
    }

    /// Drops the entry used longest ago; false when there is none. Linear in the entries: it runs only on a
    /// miss that must make room, next to a compilation that costs more.
    private static func evictLeastRecentlyUsed(_ state: inout State) -> Bool {
        var oldest: (hash: UInt64, slot: Int, lastUse: UInt64)?
        for (hash, bucket) in state.entries {
            for (slot, entry) in bucket.enumerated() where entry.lastUse < (oldest?.lastUse ?? .max) {
                oldest = (hash, slot, entry.lastUse)
            }
        }
        guard let oldest, var bucket = state.entries[oldest.hash] else { return false }
        let removed = bucket.remove(at: oldest.slot)
        state.entries[oldest.hash] = bucket.isEmpty ? nil : bucket
        state.recent.removeAll { $0.hash == oldest.hash && $0.key == removed.key }
        state.count -= 1
        state.bytes -= removed.bytes
        return true
    }

    /// `types` source ‖ 0x00 ‖ `primaryType` ‖ 0x00 ‖ `domain` source (a string never holds a raw 0x00, and the
    /// lengths of the two containers are fixed by their brackets, so the concatenation is unambiguous).
    static func key(_ typedData: TypedData) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(
            typedData.types.sourceLength + typedData.domain.sourceLength + typedData.primaryType.utf8.count + 2)
        typedData.types.withSourceUTF8 { key.append(contentsOf: $0) }
        key.append(0)
        key.append(contentsOf: typedData.primaryType.utf8)
        key.append(0)
        typedData.domain.withSourceUTF8 { key.append(contentsOf: $0) }
        return key
    }

    /// A fast 64-bit hash of `bytes` (multiply–xor over 8-byte words; not cryptographic: collisions only cost a
    /// comparison, since entries are matched by their whole key).
    static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { raw in
            var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(raw.count)
            var offset = 0
            while offset + 8 <= raw.count {
                let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                h = (h ^ word) &* 0xFF51_AFD7_ED55_8CCD
                h ^= h >> 29
                offset += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while offset < raw.count {
                tail |= UInt64(raw[offset]) << shift
                shift += 8
                offset += 1
            }
            h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
            return h ^ (h >> 32)
        }
    }
}
