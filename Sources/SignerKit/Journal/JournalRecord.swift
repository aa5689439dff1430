import EthereumPrimitives

/// One line of a ``FileTransactionJournal``.
enum JournalRecord: Sendable, Equatable {
    /// A transaction about to be broadcast.
    case broadcast(JournalEntry)
    /// The end of a transaction's story.
    case resolution(Bytes32, JournalOutcome)

    /// The record as one JSON line, newline included.
    var line: String {
        var object = JSONObject()
        object["v"] = .number("1")
        switch self {
        case .broadcast(let entry):
            object["op"] = .string("broadcast")
            object["identity"] = .string(entry.identity.digest.hex)
            object["chain"] = .string(entry.chain.description)
            object["account"] = .string(entry.account.checksummed)
            object["nonce"] = .string(entry.nonce.hexQuantity)
            object["hash"] = .string(entry.hash.hex)
            object["raw"] = .string(Hex.encode(entry.rawTransaction))
        case .resolution(let hash, let outcome):
            object["op"] = .string(outcome.rawValue)
            object["hash"] = .string(hash.hex)
        }
        return JSONValue.object(object).serialized + "\n"
    }

    /// Reads one line (without its newline).
    init(line: String) throws(RecordError) {
        let value: JSONValue
        do { value = try JSONValue(parsing: line) } catch { throw RecordError("not JSON: \(error)") }
        guard case .object(let object) = value else { throw RecordError("not an object") }
        guard object["v"] == .number("1") else { throw RecordError("unknown version") }
        func text(_ name: String) throws(RecordError) -> String {
            guard case .string(let text)? = object[name] else { throw RecordError("\(name): missing") }
            return text
        }
        func hash(_ name: String) throws(RecordError) -> Bytes32 {
            do { return try Bytes32(hex: try text(name)) } catch let error as RecordError { throw error } catch {
                throw RecordError("\(name): \(error)")
            }
        }
        let op = try text("op")
        if let outcome = JournalOutcome(rawValue: op) {
            self = .resolution(try hash("hash"), outcome)
            return
        }
        guard op == "broadcast" else { throw RecordError("unknown op \(EchoedText.abbreviated(op))") }
        do {
            let raw = try Hex.decode(try text("raw"))
            let entry = JournalEntry(
                identity: ActionIdentity(digest: try hash("identity")), chain: try ChainID(try text("chain")),
                account: try Address(try text("account")), nonce: try UInt256(text: try text("nonce")),
                hash: try hash("hash"), rawTransaction: raw)
            guard Keccak256.hash(raw) == entry.hash else { throw RecordError("hash is not the raw transaction's") }
            self = .broadcast(entry)
        } catch let error as RecordError {
            throw error
        } catch {
            throw RecordError("\(error)")
        }
    }

    /// Why a line is not a record.
    struct RecordError: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}

/// What a journal's records add up to.
struct JournalState: Sendable {
    /// Broadcast entries in file order.
    private(set) var entries: [JournalEntry] = []
    /// Resolutions by hash (the last one counts).
    private(set) var outcomes: [Bytes32: JournalOutcome] = [:]

    /// Folds the records of a journal file's text.
    init(parsing bytes: [UInt8]) throws(JournalError) {
        var lineNumber = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.isEmpty { continue }
            let record: JournalRecord
            do { record = try JournalRecord(line: String(decoding: line, as: UTF8.self)) } catch {
                throw .corrupt(line: lineNumber, reason: error.reason)
            }
            apply(record)
        }
    }

    mutating func apply(_ record: JournalRecord) {
        switch record {
        case .broadcast(let entry): entries.append(entry)
        case .resolution(let hash, let outcome): outcomes[hash] = outcome
        }
    }

    /// The newest entry for `identity` that is unresolved or, when `includingReported`, reported.
    func latest(for identity: ActionIdentity, includingReported: Bool) -> JournalEntry? {
        entries.last { entry in
            guard entry.identity == identity else { return false }
            switch outcomes[entry.hash] {
            case nil: return true
            case .reported?: return includingReported
            case .rejected?: return false
            }
        }
    }

    /// Every unresolved entry, in file order.
    var unresolved: [JournalEntry] { entries.filter { outcomes[$0.hash] == nil } }

    /// The unresolved entry that holds `nonce` for `account` on `chain`.
    func unresolvedHolder(of nonce: UInt256, chain: ChainID, account: Address) -> JournalEntry? {
        entries.last { $0.nonce == nonce && $0.chain == chain && $0.account == account && outcomes[$0.hash] == nil }
    }

    /// The highest nonce of a non-rejected entry for `account` on `chain`.
    func highestNonce(chain: ChainID, account: Address) -> UInt256? {
        entries.lazy.filter { $0.chain == chain && $0.account == account && self.outcomes[$0.hash] != .rejected }
            .map(\.nonce).max()
    }
}
