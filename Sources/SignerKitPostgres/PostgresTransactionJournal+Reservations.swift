import EthereumPrimitives
import SignerKit
import SignerKitSupport

extension PostgresTransactionJournal {
    /// Reserves the lowest nonce at or above `floor` that no non-rejected entry and no live reservation of
    /// `account` on `chain` holds, for `lease` by the server's clock.
    ///
    /// One transaction locks the lane's row (`SELECT … FOR UPDATE`), drops its lapsed reservations, reads what
    /// is taken and inserts the reservation, so instances sharing the database never get the same nonce.
    ///
    /// - Throws: ``JournalError/io(_:)`` naming the server and its message, or when every nonce from `floor` up
    ///   is taken.
    public func reserveNonce(chain: ChainID, account: Address, atLeast floor: UInt256, lease: Duration)
        async throws(JournalError) -> UInt256
    {
        let milliseconds = String(lease.millisecondsRoundedUp)
        let reserved = try await sql { () async throws(PostgresError) -> UInt256? in
            try await database.transaction { connection throws(PostgresError) -> UInt256? in
                let lane = try Self.lockLane(chain: chain, account: account, on: connection)
                try connection.execute(
                    """
                    DELETE FROM signerkit_reservations WHERE chain = $1 AND account = $2
                    AND expires <= clock_timestamp()
                    """, lane)
                let taken = try Self.takenNonces(lane: lane, from: floor, on: connection)
                guard let nonce = LowestFree.value(atLeast: floor, notIn: taken, successor: { $0.adding(1) })
                else { return nil }
                try connection.execute(
                    """
                    INSERT INTO signerkit_reservations (chain, account, nonce, expires)
                    VALUES ($1, $2, $3, clock_timestamp() + $4::bigint * interval '1 millisecond')
                    ON CONFLICT (chain, account, nonce) DO UPDATE SET expires = EXCLUDED.expires
                    """, lane + [.bytes(nonce.word.bytes), .text(milliseconds)])
                return nonce
            }
        }
        guard let reserved else {
            throw .io(
                "transaction journal \(configuration.endpoint): every nonce from \(floor.decimalString) up is taken")
        }
        return reserved
    }

    /// Ends the reservation of `nonce` (nothing happens when there is none).
    public func releaseNonce(chain: ChainID, account: Address, nonce: UInt256) async throws(JournalError) {
        try await sql { () async throws(PostgresError) in
            try await database.transaction { connection throws(PostgresError) -> Void in
                try connection.execute(
                    "DELETE FROM signerkit_reservations WHERE chain = $1 AND account = $2 AND nonce = $3",
                    Self.lane(chain: chain, account: account) + [.bytes(nonce.word.bytes)])
            }
        }
    }

    /// The nonces at or above `floor` that a non-rejected entry or a live reservation of the lane holds,
    /// ascending.
    private static func takenNonces(lane: [PostgresValue], from floor: UInt256, on connection: PostgresConnection)
        throws(PostgresError) -> [UInt256]
    {
        let rows = try connection.query(
            """
            SELECT nonce FROM signerkit_broadcasts b WHERE chain = $1 AND account = $2 AND nonce >= $3
            AND NOT EXISTS (SELECT 1 FROM signerkit_outcomes o WHERE o.hash = b.hash AND o.outcome = 'rejected')
            UNION SELECT nonce FROM signerkit_reservations WHERE chain = $1 AND account = $2 AND nonce >= $3
            AND expires > clock_timestamp() ORDER BY nonce
            """, lane + [.bytes(floor.word.bytes)])
        var taken: [UInt256] = []
        taken.reserveCapacity(rows.count)
        for row in rows {
            guard let nonce = row.bytes(0).flatMap({ UInt256(bigEndian: $0) }) else {
                throw PostgresError(endpoint: connection.endpoint, message: "a nonce does not decode")
            }
            taken.append(nonce)
        }
        return taken
    }
}
