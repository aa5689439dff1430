import EthereumPrimitives

/// One line of a ``FileTransactionJournal``.
enum JournalRecord: Sendable, Equatable {
    /// A transaction about to be broadcast.
    case broadcast(JournalEntry)
    /// The end of a transaction's story.
    case resolution(Bytes32, JournalOutcome)
    /// An EIP-5792 call batch, recorded before its transactions.
    case callBatch(CallBatchRecord)

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
        case .callBatch(let batch):
            object["op"] = .string("calls")
            object["id"] = .string(batch.id)
            object["digest"] = .string(batch.digest.hex)
            object["chain"] = .string(batch.chain.description)
            object["account"] = .string(batch.account.checksummed)
            object["calls"] = .number(String(batch.callCount))
            object["execution"] = .string(batch.executionName)
            if let delegate = batch.delegate { object["delegate"] = .string(delegate.checksummed) }
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
        if op == "calls" {
            self = .callBatch(try Self.callBatch(object, text: text, hash: hash))
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

    /// A `calls` line's batch.
    private static func callBatch(
        _ object: JSONObject, text: (String) throws(RecordError) -> String,
        hash: (String) throws(RecordError) -> Bytes32
    ) throws(RecordError) -> CallBatchRecord {
        guard case .number(let count)? = object["calls"], let calls = Int(count) else {
            throw RecordError("calls: not a count")
        }
        let delegate: Address?
        let chain: ChainID
        let account: Address
        do {
            delegate = try object["delegate"].map { value throws in try Address(value.stringValue ?? "") }
            chain = try ChainID(try text("chain"))
            account = try Address(try text("account"))
        } catch let error as RecordError {
            throw error
        } catch {
            throw RecordError("\(error)")
        }
        guard
            let batch = CallBatchRecord(
                id: try text("id"), digest: try hash("digest"), chain: chain, account: account, callCount: calls,
                executionName: try text("execution"), delegate: delegate)
        else { throw RecordError("execution: not a call batch's execution") }
        return batch
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
    /// EIP-5792 call batches by id (the first one counts).
    private(set) var callBatches: [String: CallBatchRecord] = [:]

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
        case .callBatch(let batch): if callBatches[batch.id] == nil { callBatches[batch.id] = batch }
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
