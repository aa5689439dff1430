import EthereumPrimitives
import EthereumTransactions
import Secp256k1
import Testing

/// The first type-4 fixture row (one authorization).
private func row() throws -> SetCodeTransactionVector {
    try #require(EIP7702Fixtures.transactions.first)
}

/// The raw type-4 transaction of the first row with `mutate` applied to its RLP field list.
private func mutated(_ mutate: (inout [RLPItem]) -> Void) throws -> [UInt8] {
    let raw = hexBytes(try row().rawTransaction)
    var fields = try RLP.decode(Array(raw.dropFirst())).asList()
    mutate(&fields)
    return [0x04] + RLP.encode(.list(fields))
}

/// The first row's first authorization tuple with `mutate` applied to its six items.
private func mutatedTuple(_ mutate: @escaping (inout [RLPItem]) -> Void) throws -> [UInt8] {
    try mutated { fields in
        guard case .list(var tuples) = fields[9], case .list(var tuple) = tuples[0] else { return }
        mutate(&tuple)
        tuples[0] = .list(tuple)
        fields[9] = .list(tuples)
    }
}

/// A request object of the first row with `change` applied.
private func requestError(changing change: (inout JSONObject) -> Void) throws -> TransactionError? {
    guard var object = try row().tx.objectValue else { return nil }
    change(&object)
    let value = JSONValue.object(object)
    return transactionError { () throws(TransactionError) in try TransactionRequest(json: value) }
}

@Suite("EIP-7702: strict decoding, request checks, authority recovery")
struct EIP7702StrictTests {
    @Test("a type-4 transaction without destination or with an empty authorization list is refused")
    func decodeRefusesCreationAndEmptyList() throws {
        let noDestination = try mutated { $0[5] = .empty }
        #expect(decodeError(noDestination) == .contractCreationNotAllowed(type: .eip7702))
        let emptyList = try mutated { $0[9] = .emptyList }
        #expect(decodeError(emptyList) == .emptyAuthorizationList)
        #expect(decodeError(emptyList)?.description.contains("authorizationList") == true)
    }

    @Test("field counts, tuple shapes and trailing bytes")
    func decodeShapes() throws {
        #expect(
            decodeError(try mutated { $0.removeLast() }) == .wrongFieldCount(type: .eip7702, expected: 13, actual: 12))
        #expect(
            decodeError(try mutatedTuple { $0.removeLast() })
                == .invalidRawField(field: "authorizationList[0]", problem: .wrongItemCount(expected: 6, actual: 5)))
        #expect(
            decodeError(try mutated { $0[9] = .bytes([1]) })
                == .invalidRawField(field: "authorizationList", problem: .rlp(.expectedList)))
        #expect(
            decodeError(try mutated { $0[9] = .list([.bytes([1])]) })
                == .invalidRawField(field: "authorizationList[0]", problem: .rlp(.expectedList)))
        #expect(
            decodeError(try mutatedTuple { $0[1] = .bytes([UInt8](repeating: 1, count: 19)) })
                == .invalidRawField(
                    field: "authorizationList[0].address", problem: .wrongLength(expected: 20, actual: 19)))
        let raw = hexBytes(try row().rawTransaction)
        #expect(decodeError(raw + [0]) == .malformedRLP(.trailingBytes(offset: raw.count)))
        #expect(decodeError(Array(raw.dropLast())) == .malformedRLP(.truncated(offset: 1)))
    }

    @Test("tuple bounds: nonce below 2^64, yParity below 2^8, canonical integers")
    func decodeTupleBounds() throws {
        // 2^64: nine bytes.
        let bigNonce = try mutatedTuple { $0[2] = .bytes([1, 0, 0, 0, 0, 0, 0, 0, 0]) }
        guard case .invalidRawField(let field, _) = decodeError(bigNonce) else {
            Issue.record("nonce 2^64 decoded")
            return
        }
        #expect(field == "authorizationList[0].nonce")
        #expect(
            decodeError(try mutatedTuple { $0[3] = .bytes([1, 0]) })
                == .invalidRawField(
                    field: "authorizationList[0].yParity", problem: .invalidValue("0x100 (EIP-7702: below 2^8)")))
        // A leading zero byte in r is not a canonical integer.
        let paddedR = try mutatedTuple { tuple in
            if case .bytes(let r) = tuple[4] { tuple[4] = .bytes([0] + r) }
        }
        #expect(
            decodeError(paddedR)
                == .invalidRawField(field: "authorizationList[0].r", problem: .rlp(.nonCanonicalInteger)))
        // 2^64 − 1 is within the bounds (a node skips the tuple), and round-trips.
        let maxNonce = try mutatedTuple { $0[2] = .uint(UInt64.max) }
        let decoded = try SignedTransaction.decode(raw: maxNonce)
        #expect(decoded.transaction.authorizationList.first?.nonce == UInt64.max)
        #expect(decoded.rawTransaction == maxNonce)
    }

    @Test("authority recovery refuses yParity 2, high s and out-of-range r")
    func authorityRecovery() throws {
        let key = try PrivateKey(hex: "0x" + String(repeating: "11", count: 32))
        let authorization = Authorization(
            chainId: 1, address: try Address("0x" + String(repeating: "ab", count: 20)), nonce: 7)
        let signed = authorization.sign(with: key)
        #expect(try signed.recoverAuthority() == key.address)

        var parity = signed
        parity.yParity = 2
        #expect(throws: AuthorityRecoveryError.invalidYParity(2)) { try parity.recoverAuthority() }

        // The malleable twin (n − s, parity flipped) recovers the same key under plain ecrecover, but
        // EIP-7702 requires s ≤ n/2.
        var twin = signed
        twin.s = Secp256k1Order.order - signed.s
        twin.yParity = signed.yParity ^ 1
        #expect(throws: AuthorityRecoveryError.highS) { try twin.recoverAuthority() }
        let twinSignature = try #require(twin.signature)
        #expect(try ECDSA.recoverAddress(prehash: authorization.signingHash, signature: twinSignature) == key.address)

        var zeroR = signed
        zeroR.r = .zero
        #expect(throws: AuthorityRecoveryError.recovery(.invalidSignature)) { try zeroR.recoverAuthority() }

        // In a transaction, each tuple is judged on its own.
        let tx = EIP7702Transaction(
            chainId: 1, nonce: 0, maxPriorityFeePerGas: 1, maxFeePerGas: 2, gasLimit: 100_000,
            destination: key.address, authorizationList: [signed, twin])
        let decoded = try SignedTransaction.decode(raw: tx.sign(with: key).rawTransaction)
        let authorities = decoded.recoverAuthorities()
        #expect(try authorities[0].get() == key.address)
        #expect(throws: AuthorityRecoveryError.highS) { try authorities[1].get() }
    }

    @Test("request: type 0x4 needs to and a non-empty list; other types refuse a list")
    func requestChecks() throws {
        #expect(try requestError { $0["to"] = nil } == .contractCreationNotAllowed(type: .eip7702))
        #expect(try requestError { $0["to"] = .null } == .contractCreationNotAllowed(type: .eip7702))
        #expect(try requestError { $0["authorizationList"] = .array([]) } == .emptyAuthorizationList)
        #expect(try requestError { $0["authorizationList"] = nil } == .emptyAuthorizationList)
        #expect(
            try requestError { $0["type"] = .string("0x2") }
                == .fieldNotAllowed(field: "authorizationList", type: .eip1559))
        #expect(
            try requestError { $0["gasPrice"] = .string("0x1") } == .fieldNotAllowed(field: "gasPrice", type: .eip7702))
        #expect(
            try requestError {
                $0["type"] = nil
                $0["maxFeePerGas"] = nil
                $0["maxPriorityFeePerGas"] = nil
                $0["gasPrice"] = .string("0x1")
            } == .conflictingFields("gasPrice", "authorizationList"))
        #expect(try requestError { $0["type"] = .string("0x3") } == .unsupportedType("0x3"))
        // Without "type", an authorization list makes the request type 0x4.
        let inferred = try #require(try row().tx.objectValue)
        var untyped = inferred
        untyped["type"] = nil
        #expect(try TransactionRequest(json: .object(untyped)).type == .eip7702)
    }

    @Test("request: tuple members are required and bounded, errors name the position")
    func requestTuples() throws {
        func tupleError(_ change: @escaping (inout JSONObject) -> Void) throws -> TransactionError? {
            try requestError { object in
                guard case .array(var tuples) = object["authorizationList"], case .object(var tuple) = tuples[0] else {
                    return
                }
                change(&tuple)
                tuples[0] = .object(tuple)
                object["authorizationList"] = .array(tuples)
            }
        }
        #expect(try tupleError { $0["r"] = nil } == .missingField("authorizationList[0].r"))
        #expect(try tupleError { $0["chainId"] = nil } == .missingField("authorizationList[0].chainId"))
        #expect(
            try tupleError { $0["nonce"] = .string("0x10000000000000000") }
                == .quantityTooWide(field: "authorizationList[0].nonce", value: "0x10000000000000000", bits: 64))
        #expect(
            try tupleError { $0["yParity"] = .string("0x100") }
                == .quantityTooWide(field: "authorizationList[0].yParity", value: "0x100", bits: 8))
        #expect(
            try tupleError { $0["address"] = .string("0x1234") }
                == .invalidAddress(field: "authorizationList[0].address", .malformed("0x1234")))
        #expect(
            try requestError { $0["authorizationList"] = .array([.string("x")]) }
                == .wrongJSONKind(field: "authorizationList[0]", expected: "an object", actual: "string"))
        // Decimal quantities are accepted like everywhere else.
        #expect(try tupleError { $0["nonce"] = .number("127") } == nil)
    }
}
