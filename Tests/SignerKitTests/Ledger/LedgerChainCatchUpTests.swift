import EthereumPrimitives
import SignerKit
import Testing

/// `LedgerChain.adopt(stored:complete:)`: catching up with a store's rows, its newest record read again first.
@Suite("Ledger chain catching up with a store")
struct LedgerChainCatchUpTests {
    /// A store's rows of `count` records, and a chain that holds the first `held` of them.
    static func store(_ count: Int, held: Int) -> (rows: [(seq: Int, text: String)], chain: LedgerChain) {
        let entries = LedgerChain().sealed(texts: (0..<count).map { #"{"n":\#($0)}"# })
        var chain = LedgerChain()
        chain.append(Array(entries.prefix(held)))
        return (entries.map { (seq: $0.seq, text: $0.text) }, chain)
    }

    @Test("rows from the chain's last on: the last is checked, the rest adopted; earlier rows are passed over")
    func catchesUp() throws {
        var (rows, chain) = Self.store(5, held: 3)
        try chain.adopt(stored: Array(rows[chain.catchUpFrom...]), complete: true)
        #expect(chain.size == 5)
        #expect(chain.lastLeafHash == MerkleHash.leaf(Array(rows[4].text.utf8)))
        // Read from an older point (the chain took records since): the rows it holds are passed over.
        (rows, chain) = Self.store(5, held: 4)
        try chain.adopt(stored: Array(rows[1...]), complete: true)
        #expect(chain.size == 5)
        // An empty chain takes every row.
        var empty = LedgerChain()
        try empty.adopt(stored: rows, complete: true)
        #expect(empty.size == 5)
    }

    @Test("the chain's last record deleted or changed: an error naming it when the read is complete")
    func changedUnderneath() throws {
        var (rows, chain) = Self.store(5, held: 3)
        #expect(throws: LedgerChainError.changedUnderneath(index: 2)) {
            try chain.adopt(stored: Array(rows[3...]), complete: true)
        }
        rows[2].text = #"{"seq":2,"prev":"x"}"#
        #expect(throws: LedgerChainError.changedUnderneath(index: 2)) {
            try chain.adopt(stored: Array(rows[2...]), complete: false)
        }
        #expect(chain.size == 3, "nothing was adopted")
    }

    @Test("a read that may predate the chain's newest records: a missing last record is not an error")
    func incompleteRead() throws {
        // Rows read from seq 2 when the store held 3 records; the chain took records 3 and 4 since.
        var (rows, chain) = Self.store(5, held: 5)
        rows = Array(rows[2...2])
        try chain.adopt(stored: rows, complete: false)
        #expect(chain.size == 5)
        try chain.adopt(stored: [], complete: false)
        #expect(chain.size == 5)
    }
}
