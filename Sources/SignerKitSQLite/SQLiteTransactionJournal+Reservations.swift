import EthereumPrimitives
import SignerKit
import SignerKitSupport

extension SQLiteTransactionJournal {
    /// Reserves the lowest nonce at or above `floor` that no non-rejected entry and no live reservation of
    /// `account` on `chain` holds, for `lease` by SQLite's clock.
    ///
    /// One `BEGIN IMMEDIATE` transaction drops the lane's lapsed reservations, reads what is taken and inserts
    /// the reservation, so two processes sharing the file never get the same nonce.
    ///
    /// - Throws: ``JournalError/io(_:)`` naming the file and SQLite's message, or when every nonce from
    ///   `floor` up is taken.
    public func reserveNonce(chain: ChainID, account: Address, atLeast floor: UInt256, lease: Duration)
        async throws(JournalError) -> UInt256
    {
        let seconds = lease.secondsValue
        let reserved = try await queue.perform { () throws(JournalError) -> UInt256? in
            try self.sql { () throws(SQLiteError) -> UInt256? in
                try self.database.transaction { () throws(SQLiteError) -> UInt256? in
                    let lane: [SQLiteValue] = [.text(chain.description), .text(account.lowercased)]
                    try self.database.query(
                        "DELETE FROM reservations WHERE chain = ? AND account = ? AND expires <= \(SQLiteDatabase.now)",
                        lane)
                    let taken = try self.takenNonces(lane: lane, from: floor)
                    guard let nonce = LowestFree.value(atLeast: floor, notIn: taken, successor: { $0.adding(1) })
                    else { return nil }
                    try self.database.query(
                        """
                        INSERT OR REPLACE INTO reservations (chain, account, nonce, expires)
                        VALUES (?, ?, ?, \(SQLiteDatabase.now) + ?)
                        """, lane + [.blob(nonce.word.bytes), .real(seconds)])
                    return nonce
                }
            }
        }
        guard let reserved else {
            throw .io("transaction journal \(path): every nonce from \(floor.decimalString) up is taken")
        }
        return reserved
    }

    /// Ends the reservation of `nonce` (nothing happens when there is none).
    public func releaseNonce(chain: ChainID, account: Address, nonce: UInt256) async throws(JournalError) {
        try await queue.perform { () throws(JournalError) in
            try self.sql { () throws(SQLiteError) in
                try self.database.query(
                    "DELETE FROM reservations WHERE chain = ? AND account = ? AND nonce = ?",
                    [.text(chain.description), .text(account.lowercased), .blob(nonce.word.bytes)])
            }
        }
    }

    /// Ends every nonce reservation and returns how many there were: for the one instance on this file (it holds
    /// the ``SQLiteInstanceLock``) before it serves, every reservation is one a killed earlier run left, and its
    /// nonce — never journalled, so never broadcast — is free for the next transaction of the account at once.
    public func releaseAllReservations() async throws(JournalError) -> Int {
        try await queue.perform { () throws(JournalError) -> Int in
            try self.sql { () throws(SQLiteError) -> Int in
                try self.database.query("DELETE FROM reservations", [])
                return self.database.changes
            }
        }
    }

    /// The nonces at or above `floor` that a non-rejected entry or a reservation of the lane holds, ascending
    /// (lapsed reservations are already gone).
    private func takenNonces(lane: [SQLiteValue], from floor: UInt256) throws(SQLiteError) -> [UInt256] {
        var taken: [UInt256] = []
        var corrupt = false
        // 32-byte big-endian words: the byte order is the numeric order.
        try database.query(
            """
            SELECT nonce FROM broadcasts b WHERE chain = ?1 AND account = ?2 AND nonce >= ?3 AND NOT EXISTS
            (SELECT 1 FROM outcomes o WHERE o.hash = b.hash AND o.outcome = 'rejected')
            UNION SELECT nonce FROM reservations WHERE chain = ?1 AND account = ?2 AND nonce >= ?3 ORDER BY nonce
            """, lane + [.blob(floor.word.bytes)]
        ) { row in
            guard let nonce = row.blob(0).flatMap({ UInt256(bigEndian: $0) }) else {
                corrupt = true
                return
            }
            taken.append(nonce)
        }
        if corrupt { throw SQLiteError(path: path, message: "a nonce does not decode") }
        return taken
    }
}
