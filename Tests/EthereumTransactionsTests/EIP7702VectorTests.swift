import EthereumPrimitives
import EthereumTransactions
import Secp256k1
import Testing

@Suite("EIP-7702 ground-truth vectors")
struct EIP7702VectorTests {
    @Test("all rows load: 40 authorizations, 30 type-4 transactions")
    func fixturesLoad() throws {
        #expect(try EIP7702Fixtures.load("eip7702_authorizations", AuthorizationVector.init).count == 40)
        #expect(try EIP7702Fixtures.load("transactions_type4", SetCodeTransactionVector.init).count == 30)
    }

    @Test("authorization: hash, signature, JSON and authority byte for byte", arguments: EIP7702Fixtures.authorizations)
    func authorization(_ row: AuthorizationVector) throws {
        let authorization = try Authorization(json: row.authorization)
        #expect(authorization.signingHash.hex == row.authorizationHash)
        #expect(Keccak256.hash(authorization.signingPayload) == authorization.signingHash)
        #expect(authorization.signingPayload.first == 0x05)

        let key = try PrivateKey(hex: row.privateKey)
        let authority = try Address(row.authority)
        #expect(key.address == authority)
        let signed = authorization.sign(with: key)
        #expect(UInt256(UInt64(signed.yParity)).hexQuantity == row.yParity)
        #expect(signed.r.hexQuantity == row.r)
        #expect(signed.s.hexQuantity == row.s)
        #expect(signed.authorization == authorization)
        #expect(try signed.recoverAuthority() == authority)

        // The printed JSON is the row's own values, minimal quantities and the EIP-55 address.
        let expected: JSONValue = .object(
            JSONObject([
                "chainId": .string(try UInt256(text: row.authorization["chainId"]?.stringValue ?? "").hexQuantity),
                "address": .string(authorization.address.checksummed),
                "nonce": .string(try UInt256(text: row.authorization["nonce"]?.stringValue ?? "").hexQuantity),
                "yParity": .string(row.yParity), "r": .string(row.r), "s": .string(row.s),
            ]))
        #expect(signed.json.serialized == expected.serialized)
        // The tuple parsed from that JSON recovers the same authority.
        let parsed = try SignedAuthorization(json: signed.json)
        #expect(parsed == signed)
        #expect(try parsed.recoverAuthority() == authority)
    }

    @Test(
        "type-4 transaction: parse, sign, raw, hash, decode, sender and authorities",
        arguments: EIP7702Fixtures.transactions)
    func transaction(_ row: SetCodeTransactionVector) throws {
        let request = try TransactionRequest(json: row.tx)
        #expect(request.type == .eip7702)
        #expect(request.missingFields.isEmpty)
        let sender = try Address(row.sender)
        #expect(request.from == sender)
        let transaction = try request.complete(chainId: nil)
        #expect(transaction.type == .eip7702)
        #expect(transaction.signingPayload.first == 0x04)

        let key = try PrivateKey(hex: row.privateKey)
        #expect(key.address == sender)
        let signed = transaction.sign(with: key)
        #expect(signed.rawTransactionHex == row.rawTransaction)
        #expect(signed.hash.hex == row.hash)

        let decoded = try SignedTransaction.decode(hex: row.rawTransaction)
        #expect(decoded == signed)
        #expect(decoded.transaction == transaction)
        #expect(try decoded.recoverSender() == sender)
        let authorities = decoded.recoverAuthorities().map { try? $0.get() }
        #expect(authorities == (try row.authorities.map { try Address($0) }))
        #expect(decoded.transaction.authorizationList.count == row.authorities.count)

        // Fields against the row's JSON, independently of the request parser.
        guard case .eip7702(let typed) = decoded.transaction else {
            Issue.record("decoded as \(decoded.transaction.type)")
            return
        }
        func quantity(_ key: String) throws -> UInt256? {
            try row.tx[key]?.stringValue.map { try UInt256(text: $0) }
        }
        #expect(typed.chainId == (try quantity("chainId")))
        #expect(typed.nonce == (try quantity("nonce")))
        #expect(typed.maxFeePerGas == (try quantity("maxFeePerGas")))
        #expect(typed.maxPriorityFeePerGas == (try quantity("maxPriorityFeePerGas")))
        #expect(typed.gasLimit == (try quantity("gas")))
        #expect(typed.value == (try quantity("value")))
        #expect(typed.destination == (try Address(row.tx["to"]?.stringValue ?? "")))
        #expect(typed.data == hexBytes(row.tx["data"]?.stringValue ?? ""))
        let tuples = row.tx["authorizationList"]?.arrayValue ?? []
        #expect(typed.authorizationList.map(\.json.serialized) == tuples.map(\.serialized))
    }
}
