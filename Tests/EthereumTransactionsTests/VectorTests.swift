import EthereumPrimitives
import EthereumTransactions
import Secp256k1
import Testing

@Suite("Ground-truth transaction vectors")
struct VectorTests {
    @Test("all 72 rows load, covering every type and tag")
    func fixturesLoad() throws {
        let rows = try Fixtures.loadTransactions()
        #expect(rows.count == 72)
        #expect(Set(rows.map(\.type)) == ["legacy", "eip2930", "eip1559"])
        #expect(Set(rows.flatMap(\.tags)) == ["contract-creation", "pre-eip155", "chainId>uint64"])
    }

    @Test("parse, sign, hash, decode and recover", arguments: Fixtures.transactions)
    func vector(_ row: TransactionVector) throws {
        let request = try TransactionRequest(json: row.tx)
        let expectedType: TransactionType =
            switch row.type {
            case "legacy": .legacy
            case "eip2930": .eip2930
            default: .eip1559
            }
        #expect(request.type == expectedType)
        #expect(request.missingFields.isEmpty)
        let sender = try Address(row.sender)
        #expect(request.from == sender)

        let transaction = try request.complete(chainId: row.chainId)
        #expect(transaction.type == expectedType)
        #expect(transaction.chainId == row.chainId)
        // The request's own chain id is kept when the caller passes none.
        if row.tx["chainId"] != nil {
            #expect(try request.complete(chainId: nil) == transaction)
        }

        let key = try PrivateKey(hex: row.privateKey)
        #expect(key.address == sender)
        let signed = transaction.sign(with: key)
        #expect(signed.rawTransactionHex == row.rawTransaction)
        #expect(signed.rawTransaction == hexBytes(row.rawTransaction))
        #expect(signed.hash.hex == row.hash)

        let decoded = try SignedTransaction.decode(hex: row.rawTransaction)
        #expect(decoded == signed)
        #expect(decoded.transaction == transaction)
        #expect(decoded.rawTransaction == signed.rawTransaction)
        #expect(decoded.hash.hex == row.hash)
        try expectFields(of: decoded.transaction, match: row)

        #expect(try decoded.recoverSender() == sender)
        #expect(try signed.recoverSender() == sender)
    }

    /// Compares decoded fields with the row's JSON directly (independently of the request parser).
    func expectFields(of transaction: Transaction, match row: TransactionVector) throws {
        let tx = row.tx
        func quantity(_ key: String) throws -> UInt256? {
            guard let text = tx[key]?.stringValue else { return nil }
            return try UInt256(text: text)
        }
        #expect(transaction.nonce == (try quantity("nonce")))
        #expect(transaction.gasLimit == (try quantity("gas")))
        #expect(transaction.value == (try quantity("value")))
        #expect(transaction.data == hexBytes(tx["data"]?.stringValue ?? ""))
        #expect(transaction.to == (try tx["to"]?.stringValue.map { try Address($0) }))
        #expect(transaction.to == nil ? row.tags.contains("contract-creation") : true)
        #expect(transaction.chainId == (try quantity("chainId")))
        switch transaction {
        case .legacy(let legacy):
            #expect(legacy.gasPrice == (try quantity("gasPrice")))
            #expect((legacy.chainId == nil) == row.tags.contains("pre-eip155"))
        case .eip2930(let typed):
            #expect(typed.gasPrice == (try quantity("gasPrice")))
        case .eip1559(let typed):
            #expect(typed.maxFeePerGas == (try quantity("maxFeePerGas")))
            #expect(typed.maxPriorityFeePerGas == (try quantity("maxPriorityFeePerGas")))
        case .eip7702(let typed):
            #expect(typed.maxFeePerGas == (try quantity("maxFeePerGas")))
            #expect(typed.maxPriorityFeePerGas == (try quantity("maxPriorityFeePerGas")))
        case .roninSponsored:
            Issue.record("transactions.jsonl holds no sponsored transaction: \(row.name)")
        }
        let expectedList = try (tx["accessList"]?.arrayValue ?? []).map { entry in
            AccessListEntry(
                address: try Address(entry["address"]?.stringValue ?? ""),
                storageKeys: try (entry["storageKeys"]?.arrayValue ?? []).map { try Bytes32(hex: $0.stringValue ?? "") }
            )
        }
        #expect(transaction.accessList == expectedList)
    }

    @Test("missing nonce, gas and fees are reported, then filled to the same transaction")
    func fillingMissingFields() throws {
        for row in Fixtures.transactions {
            guard case .object(var object) = row.tx else { continue }
            for key in ["nonce", "gas", "gasPrice", "maxFeePerGas", "maxPriorityFeePerGas"] { object[key] = nil }
            let partial = try TransactionRequest(json: .object(object))
            let fees = row.type == "eip1559" ? ["maxFeePerGas", "maxPriorityFeePerGas"] : ["gasPrice"]
            #expect(partial.missingFields == ["nonce", "gas"] + fees)
            #expect(
                transactionError { () throws(TransactionError) in try partial.complete(chainId: row.chainId) }
                    == .missingField("nonce"))

            let full = try TransactionRequest(json: row.tx)
            let filled = partial.filling(
                nonce: full.nonce, gasLimit: full.gasLimit, gasPrice: full.gasPrice, maxFeePerGas: full.maxFeePerGas,
                maxPriorityFeePerGas: full.maxPriorityFeePerGas)
            #expect(filled == full)
            let signed = try filled.complete(chainId: row.chainId).sign(with: PrivateKey(hex: row.privateKey))
            #expect(signed.rawTransactionHex == row.rawTransaction)
        }
    }

    @Test("filling keeps values that are already present")
    func fillingKeepsPresentValues() throws {
        let request = try TransactionRequest(
            json: json(#"{"to":"0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf","nonce":"0x5","maxFeePerGas":"0x10"}"#))
        let filled = request.filling(nonce: 9, gasLimit: 21000, gasPrice: 7, maxFeePerGas: 99, maxPriorityFeePerGas: 2)
        #expect(filled.nonce == 5)
        #expect(filled.gasLimit == 21000)
        #expect(filled.gasPrice == nil)
        #expect(filled.maxFeePerGas == 16)
        #expect(filled.maxPriorityFeePerGas == 2)
        #expect(filled.missingFields.isEmpty)
    }
}
