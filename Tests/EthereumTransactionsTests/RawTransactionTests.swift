import EthereumPrimitives
import EthereumTransactions
import Secp256k1
import Testing

/// The first fixture row of the given type.
private func vector(_ type: String) throws -> TransactionVector {
    try #require(Fixtures.transactions.first { $0.type == type && !$0.tags.contains("contract-creation") })
}

/// A well-formed signed transaction re-encoded with `mutate` applied to its RLP field list.
private func reencoded(_ raw: [UInt8], _ mutate: (inout [RLPItem]) -> Void) throws -> [UInt8] {
    let typed = raw[0] < 0x80
    var fields = try RLP.decode(typed ? Array(raw.dropFirst()) : raw).asList()
    mutate(&fields)
    let body = RLP.encode(.list(fields))
    return typed ? [raw[0]] + body : body
}

@Suite("Raw transactions: strict decoding")
struct RawTransactionTests {
    @Test("empty input, unknown type bytes and non-lists")
    func envelopes() {
        #expect(decodeError([]) == .emptyRawTransaction)
        #expect(decodeError([]).map(\.description) == "raw transaction is empty")
        #expect(decodeError([0x03, 0xc0]) == .unsupportedType("0x3"))
        #expect(decodeError([0x00]) == .unsupportedType("0x0"))
        #expect(decodeError([0x7f]) == .unsupportedType("0x7f"))
        #expect(decodeError([0x80]) == .malformedRLP(.expectedList))
        #expect(decodeError([0x02, 0x80]) == .malformedRLP(.expectedList))
        #expect(decodeError([0x02]) == .malformedRLP(.truncated(offset: 1)))
        let hexError = transactionError { () throws(TransactionError) in try SignedTransaction.decode(hex: "f800") }
        #expect(hexError == .invalidBytes(field: "rawTransaction", .missingPrefix))
    }

    @Test(
        "trailing bytes are refused, with offsets in the raw transaction", arguments: ["legacy", "eip2930", "eip1559"])
    func trailingBytes(type: String) throws {
        let raw = hexBytes(try vector(type).rawTransaction)
        let error = decodeError(raw + [0x00])
        #expect(error == .malformedRLP(.trailingBytes(offset: raw.count)))
        #expect(error?.description == "raw transaction: rlp: trailing bytes after the item at offset \(raw.count)")
    }

    @Test("truncated input is refused", arguments: ["legacy", "eip2930", "eip1559"])
    func truncated(type: String) throws {
        let raw = hexBytes(try vector(type).rawTransaction)
        let headerOffset = type == "legacy" ? 0 : 1
        #expect(decodeError(Array(raw.dropLast())) == .malformedRLP(.truncated(offset: headerOffset)))
    }

    @Test("wrong field counts")
    func fieldCounts() throws {
        let legacy = hexBytes(try vector("legacy").rawTransaction)
        #expect(
            decodeError(try reencoded(legacy) { $0.removeLast() })
                == .wrongFieldCount(type: .legacy, expected: 9, actual: 8))
        let eip2930 = hexBytes(try vector("eip2930").rawTransaction)
        #expect(
            decodeError(try reencoded(eip2930) { $0.append(.empty) })
                == .wrongFieldCount(type: .eip2930, expected: 11, actual: 12))
        let eip1559 = hexBytes(try vector("eip1559").rawTransaction)
        let error = decodeError(try reencoded(eip1559) { $0.removeLast(3) })
        #expect(error == .wrongFieldCount(type: .eip1559, expected: 12, actual: 9))
        #expect(error?.description == "raw transaction: a type 0x2 (EIP-1559) transaction has 12 fields, got 9")
    }

    @Test("non-canonical and mistyped fields name the field")
    func badFields() throws {
        let legacy = hexBytes(try vector("legacy").rawTransaction)
        let leadingZero = decodeError(try reencoded(legacy) { $0[0] = .bytes([0x00, 0x01]) })
        #expect(leadingZero == .invalidRawField(field: "nonce", problem: .rlp(.nonCanonicalInteger)))
        #expect(
            leadingZero?.description
                == #"raw transaction field "nonce": rlp: non-canonical integer (leading zero byte)"#)
        #expect(
            decodeError(try reencoded(legacy) { $0[4] = .bytes([UInt8](repeating: 1, count: 33)) })
                == .invalidRawField(field: "value", problem: .rlp(.integerOverflow(maxBytes: 32))))
        #expect(
            decodeError(try reencoded(legacy) { $0[3] = .bytes([UInt8](repeating: 1, count: 19)) })
                == .invalidRawField(field: "to", problem: .wrongLength(expected: 20, actual: 19)))
        #expect(
            decodeError(try reencoded(legacy) { $0[5] = .emptyList })
                == .invalidRawField(field: "data", problem: .rlp(.expectedBytes)))
        #expect(
            decodeError(try reencoded(legacy) { $0[7] = .bytes([0x00, 0x01]) })
                == .invalidRawField(field: "r", problem: .rlp(.nonCanonicalInteger)))
    }

    @Test("legacy v must be 27, 28 or 35 + 2·chainId + {0, 1}")
    func legacyV() throws {
        let legacy = hexBytes(try vector("legacy").rawTransaction)
        for bad: UInt64 in [0, 1, 26, 29, 30, 34] {
            #expect(
                decodeError(try reencoded(legacy) { $0[6] = .uint(bad) })
                    == .invalidRawField(field: "v", problem: .invalidValue(UInt256(bad).hexQuantity)))
        }
        // 33 bytes: (v − 35) / 2 = 2^256 + 14 does not fit 256 bits.
        let tooBig: [UInt8] = [0x02] + [UInt8](repeating: 0, count: 31) + [0x40]
        #expect(
            decodeError(try reencoded(legacy) { $0[6] = .bytes(tooBig) })
                == .invalidRawField(
                    field: "v", problem: .invalidValue("0x2" + String(repeating: "00", count: 31) + "40")))
        #expect(
            decodeError(try reencoded(legacy) { $0[6] = .bytes([UInt8](repeating: 1, count: 34)) })
                == .invalidRawField(field: "v", problem: .rlp(.integerOverflow(maxBytes: 33))))
    }

    @Test("typed yParity must be 0 or 1")
    func yParity() throws {
        let eip1559 = hexBytes(try vector("eip1559").rawTransaction)
        let error = decodeError(try reencoded(eip1559) { $0[9] = .uint(2) })
        #expect(error == .invalidRawField(field: "yParity", problem: .invalidValue("0x2")))
        #expect(error?.description == #"raw transaction field "yParity": invalid value 0x2"#)
        #expect(
            decodeError(try reencoded(eip1559) { $0[9] = .bytes([0x00]) })
                == .invalidRawField(field: "yParity", problem: .rlp(.nonCanonicalInteger)))
    }

    @Test("access lists are strict")
    func accessLists() throws {
        let eip2930 = hexBytes(try vector("eip2930").rawTransaction)
        let address = RLPItem.bytes([UInt8](repeating: 0xaa, count: 20))
        #expect(
            decodeError(try reencoded(eip2930) { $0[7] = .empty })
                == .invalidRawField(field: "accessList", problem: .rlp(.expectedList)))
        #expect(
            decodeError(try reencoded(eip2930) { $0[7] = [[address]] })
                == .invalidRawField(field: "accessList[0]", problem: .wrongItemCount(expected: 2, actual: 1)))
        #expect(
            decodeError(try reencoded(eip2930) { $0[7] = [[.bytes([1, 2]), .emptyList]] })
                == .invalidRawField(field: "accessList[0].address", problem: .wrongLength(expected: 20, actual: 2)))
        #expect(
            decodeError(try reencoded(eip2930) { $0[7] = [[address, .empty]] })
                == .invalidRawField(field: "accessList[0].storageKeys", problem: .rlp(.expectedList)))
        let key = RLPItem.bytes([UInt8](repeating: 1, count: 32))
        #expect(
            decodeError(try reencoded(eip2930) { $0[7] = [[address, [key, .bytes([1])]]] })
                == .invalidRawField(
                    field: "accessList[0].storageKeys[1]", problem: .wrongLength(expected: 32, actual: 1)))
        // Keys with leading zero bytes are 32-byte strings, not integers: kept as they are.
        let zeroKey = RLPItem.bytes([0] + [UInt8](repeating: 1, count: 31))
        let decoded = try SignedTransaction.decode(raw: try reencoded(eip2930) { $0[7] = [[address, [zeroKey]]] })
        #expect(decoded.transaction.accessList.first?.storageKeys.first?.bytes.first == 0)
        #expect(decoded.rawTransaction == (try reencoded(eip2930) { $0[7] = [[address, [zeroKey]]] }))
    }

    @Test("high-s and out-of-range signatures decode but recover no sender")
    func signatureValues() throws {
        let row = try vector("eip1559")
        let signed = try SignedTransaction.decode(hex: row.rawTransaction)
        let sig = signed.signature
        // n − s with the other recovery id is the same signature in high-s form.
        let highS = try #require(Secp256k1Order.order.subtractingValue(UInt256(word: sig.s)))
        let flipped = try RecoverableSignature(r: sig.r, s: highS.word, recoveryId: sig.recoveryId ^ 1)
        let malleated = signed.transaction.signed(with: flipped)
        let decoded = try SignedTransaction.decode(raw: malleated.rawTransaction)
        let error = transactionError { () throws(TransactionError) in try decoded.recoverSender() }
        #expect(error == .highS)
        #expect(error?.description == "signature s is above n/2 (Ethereum requires low-s signatures, EIP-2)")

        let zeroR = signed.transaction.signed(with: try RecoverableSignature(r: .zero, s: sig.s, recoveryId: 0))
        #expect(
            transactionError { () throws(TransactionError) in
                try SignedTransaction.decode(raw: zeroR.rawTransaction).recoverSender()
            }
                == .senderRecovery(.invalidSignature))
    }

    @Test("a different signature over the same fields recovers a different sender")
    func wrongSigner() throws {
        let row = try vector("legacy")
        let signed = try SignedTransaction.decode(hex: row.rawTransaction)
        let other = try PrivateKey(hex: "0x" + String(repeating: "11", count: 32))
        let resigned = signed.transaction.sign(with: other)
        #expect(try resigned.recoverSender() == other.address)
        #expect(try resigned.recoverSender() != (try Address(row.sender)))
        #expect(resigned.hash != signed.hash)
    }
}

extension UInt256 {
    /// `self − other`, or `nil` below zero (test helper).
    fileprivate func subtractingValue(_ other: UInt256) -> UInt256? {
        guard other <= self else { return nil }
        return addingWrapping(other.twosComplement)
    }

    /// Addition modulo 2^256 (test helper).
    fileprivate func addingWrapping(_ other: UInt256) -> UInt256 {
        var result = UInt256.zero
        var carry: UInt64 = 0
        let a = [limbs.0, limbs.1, limbs.2, limbs.3]
        let b = [other.limbs.0, other.limbs.1, other.limbs.2, other.limbs.3]
        var out: [UInt64] = [0, 0, 0, 0]
        for i in 0..<4 {
            let (s1, o1) = a[i].addingReportingOverflow(b[i])
            let (s2, o2) = s1.addingReportingOverflow(carry)
            out[i] = s2
            carry = (o1 ? 1 : 0) + (o2 ? 1 : 0)
        }
        result.limbs = (out[0], out[1], out[2], out[3])
        return result
    }
}

@Suite("Raw transactions: mutations")
struct RawMutationTests {
    /// Every single-byte change and every truncation either fails with a typed error or decodes to
    /// a transaction that re-encodes to exactly the mutated bytes (decoding never traps or
    /// normalises).
    @Test("single-byte mutations and truncations", arguments: ["legacy", "eip2930", "eip1559"])
    func mutations(type: String) throws {
        let rows = Fixtures.transactions.filter { $0.type == type }.prefix(4)
        for row in rows {
            let raw = hexBytes(row.rawTransaction)
            for index in raw.indices {
                for delta: UInt8 in [0x01, 0x80, 0xff] {
                    var mutated = raw
                    mutated[index] ^= delta
                    if let decoded = try? SignedTransaction.decode(raw: mutated) {
                        #expect(decoded.rawTransaction == mutated)
                    }
                }
                let prefix = Array(raw[..<index])
                #expect(decodeError(prefix) != nil)
            }
        }
    }
}
