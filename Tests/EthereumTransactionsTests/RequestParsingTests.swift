import EthereumPrimitives
import EthereumTransactions
import Testing

private let to = "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"

/// A request object with `to` plus the given members.
private func request(_ members: String) -> String {
    #"{"to":"\#(to)"\#(members.isEmpty ? "" : ",")\#(members)}"#
}

@Suite("Transaction requests: parsing and its errors")
struct RequestParsingTests {
    @Test("a bad hex quantity names the field")
    func badHexQuantity() throws {
        let error = try requestError(request(#""maxFeePerGas":"0xzz""#))
        #expect(error == .invalidQuantity(field: "maxFeePerGas", value: "0xzz"))
        #expect(error?.description == #"field "maxFeePerGas": invalid quantity "0xzz""#)
        #expect(try requestError(request(#""nonce":"0x""#)) == .invalidQuantity(field: "nonce", value: "0x"))
        #expect(try requestError(request(#""nonce":"""#)) == .invalidQuantity(field: "nonce", value: ""))
        #expect(try requestError(request(#""gas":"1e6""#)) == .invalidQuantity(field: "gas", value: "1e6"))
        #expect(try requestError(request(#""gas":1.5"#)) == .invalidQuantity(field: "gas", value: "1.5"))
        #expect(try requestError(request(#""value":" 0x1""#)) == .invalidQuantity(field: "value", value: " 0x1"))
    }

    @Test("negative quantities are refused, as strings and as numbers")
    func negativeQuantity() throws {
        let error = try requestError(request(#""value":"-1""#))
        #expect(error == .negativeQuantity(field: "value", value: "-1"))
        #expect(error?.description == #"field "value": negative quantity "-1""#)
        #expect(try requestError(request(#""nonce":-5"#)) == .negativeQuantity(field: "nonce", value: "-5"))
        #expect(
            try requestError(request(#""gasPrice":"-0x10""#)) == .negativeQuantity(field: "gasPrice", value: "-0x10"))
    }

    @Test("quantities of 2^256 or more are refused")
    func tooLarge() throws {
        let big = "0x1" + String(repeating: "0", count: 64)
        #expect(try requestError(request(#""value":"\#(big)""#)) == .quantityTooLarge(field: "value", value: big))
        let max = "0x" + String(repeating: "f", count: 64)
        #expect(try TransactionRequest(json: json(request(#""value":"\#(max)""#))).value == .max)
    }

    @Test("quantities may be hex, decimal strings or JSON integers")
    func quantityForms() throws {
        let parsed = try TransactionRequest(
            json: json(request(#""nonce":7,"gas":"21000","gasPrice":"0x4A817C800","value":"0","chainId":137"#)))
        #expect(parsed.nonce == 7)
        #expect(parsed.gasLimit == 21000)
        #expect(parsed.gasPrice == 20_000_000_000)
        #expect(parsed.value == 0)
        #expect(parsed.chainId == 137)
    }

    @Test("members of the wrong JSON kind")
    func wrongKinds() throws {
        #expect(
            try requestError(request(#""nonce":true"#))
                == .wrongJSONKind(field: "nonce", expected: "a quantity string or integer", actual: "boolean"))
        #expect(try requestError(#"{"to":5}"#) == .wrongJSONKind(field: "to", expected: "a string", actual: "number"))
        #expect(
            try requestError(request(#""accessList":{}"#))
                == .wrongJSONKind(field: "accessList", expected: "an array", actual: "object"))
        #expect(try requestError("[]") == .notAnObject(actual: "array"))
        #expect(try requestError("[]")?.description == "transaction request must be a JSON object, got array")
    }

    @Test("data and input: either, or both when equal")
    func dataAndInput() throws {
        #expect(try TransactionRequest(json: json(request(#""input":"0xabcd""#))).data == [0xab, 0xcd])
        #expect(try TransactionRequest(json: json(request(#""data":"0xABCD","input":"0xabcd""#))).data == [0xab, 0xcd])
        let error = try requestError(request(#""data":"0xabcd","input":"0xabce""#))
        #expect(error == .conflictingValues("data", "input"))
        #expect(error?.description == #"fields "data" and "input" are both present with different values"#)
        #expect(try requestError(request(#""data":"0x1""#)) == .invalidBytes(field: "data", .oddLength))
        #expect(try requestError(request(#""input":"abcd""#)) == .invalidBytes(field: "input", .missingPrefix))
    }

    @Test("gas and gasLimit: either, or both when equal")
    func gasAndGasLimit() throws {
        #expect(try TransactionRequest(json: json(request(#""gasLimit":"0x5208""#))).gasLimit == 21000)
        #expect(try TransactionRequest(json: json(request(#""gas":"0x5208","gasLimit":21000"#))).gasLimit == 21000)
        #expect(
            try requestError(request(#""gas":"0x5208","gasLimit":"0x5209""#)) == .conflictingValues("gas", "gasLimit"))
    }

    @Test("addresses are strict, with EIP-55 checksums")
    func addresses() throws {
        #expect(try requestError(#"{"to":"0x1234"}"#) == .invalidAddress(field: "to", .malformed("0x1234")))
        let badChecksum = "0x7e5F4552091A69125d5DfCb7b8C2659029395Bdf"
        #expect(
            try requestError(request(#""from":"\#(badChecksum)""#))
                == .invalidAddress(field: "from", .badChecksum(badChecksum)))
        let parsed = try TransactionRequest(json: json(request(#""from":"\#(to.lowercased())""#)))
        #expect(parsed.from == (try Address(to)))
    }

    @Test("null members count as absent; a creation needs data")
    func nullsAndCreation() throws {
        let creation = try TransactionRequest(json: json(#"{"to":null,"data":"0x6000","nonce":null}"#))
        #expect(creation.to == nil)
        #expect(creation.nonce == nil)
        #expect(creation.type == .legacy)
        let error = try requestError(#"{"value":"0x1"}"#)
        #expect(error == .contractCreationWithoutData)
        #expect(try requestError(#"{"to":null,"data":"0x"}"#) == .contractCreationWithoutData)
    }

    @Test("the type is explicit or inferred")
    func typeInference() throws {
        #expect(try TransactionRequest(json: json(request(""))).type == .legacy)
        #expect(try TransactionRequest(json: json(request(#""gasPrice":"0x1""#))).type == .legacy)
        #expect(try TransactionRequest(json: json(request(#""accessList":[]"#))).type == .eip2930)
        #expect(try TransactionRequest(json: json(request(#""accessList":[],"gasPrice":"0x1""#))).type == .eip2930)
        #expect(try TransactionRequest(json: json(request(#""maxFeePerGas":"0x1""#))).type == .eip1559)
        #expect(try TransactionRequest(json: json(request(#""maxPriorityFeePerGas":"0x1""#))).type == .eip1559)
        #expect(try TransactionRequest(json: json(request(#""type":"0x2""#))).type == .eip1559)
        #expect(try TransactionRequest(json: json(request(#""type":1"#))).type == .eip2930)
        #expect(try TransactionRequest(json: json(request(#""type":"0x00","accessList":[]"#))).type == .legacy)
    }

    @Test("Ronin's sponsored type 0x64 parses (fee-market fields) but is never completed for local signing")
    func sponsored() throws {
        let parsed = try TransactionRequest(json: json(request(#""type":"0x64","maxFeePerGas":"0x2""#)))
        #expect(parsed.type == .roninSponsored)
        #expect(parsed.type.hexQuantity == "0x64")
        #expect(throws: TransactionError.forwardOnly(.roninSponsored)) {
            _ = try parsed.complete(chainId: 2020)
        }
        #expect(try requestError(request(#""type":"0x64","gasPrice":"0x1""#)) != nil)
    }

    @Test("unknown types and blob fields are refused; an empty authorization list is an invalid type-4 request")
    func unsupported() throws {
        let error = try requestError(request(#""type":"0x3""#))
        #expect(error == .unsupportedType("0x3"))
        #expect(
            error?.description
                == #"field "type": unsupported transaction type "0x3" (supported: 0x0, 0x1, 0x2, 0x4, 0x64)"#)
        #expect(try requestError(request(#""type":"0x7e""#)) == .unsupportedType("0x7e"))
        #expect(try requestError(request(#""type":"0x10000""#)) == .unsupportedType("0x10000"))
        #expect(try requestError(request(#""type":"legacy""#)) == .invalidQuantity(field: "type", value: "legacy"))
        #expect(try requestError(request(#""blobVersionedHashes":[]"#)) == .unsupportedField("blobVersionedHashes"))
        #expect(try requestError(request(#""authorizationList":[]"#)) == .emptyAuthorizationList)
    }

    @Test("fields that do not fit the type")
    func fieldsForType() throws {
        #expect(
            try requestError(request(#""gasPrice":"0x1","maxFeePerGas":"0x2""#))
                == .conflictingFields("gasPrice", "maxFeePerGas"))
        #expect(
            try requestError(request(#""gasPrice":"0x1","maxPriorityFeePerGas":"0x2""#))
                == .conflictingFields("gasPrice", "maxPriorityFeePerGas"))
        let error = try requestError(request(#""type":"0x2","gasPrice":"0x1""#))
        #expect(error == .fieldNotAllowed(field: "gasPrice", type: .eip1559))
        #expect(error?.description == #"field "gasPrice" is not allowed in a type 0x2 (EIP-1559) transaction"#)
        #expect(
            try requestError(request(#""type":"0x1","maxFeePerGas":"0x1""#))
                == .fieldNotAllowed(field: "maxFeePerGas", type: .eip2930))
        #expect(
            try requestError(request(#""type":"0x0","maxPriorityFeePerGas":"0x1""#))
                == .fieldNotAllowed(field: "maxPriorityFeePerGas", type: .legacy))
        let entry = #"{"address":"\#(to)","storageKeys":[]}"#
        #expect(
            try requestError(request(#""type":"0x0","accessList":[\#(entry)]"#))
                == .fieldNotAllowed(field: "accessList", type: .legacy))
    }

    @Test("maxPriorityFeePerGas may not exceed maxFeePerGas")
    func priorityFee() throws {
        let error = try requestError(request(#""maxFeePerGas":"0x1","maxPriorityFeePerGas":"0x2""#))
        #expect(error == .priorityFeeAboveMaxFee(maxPriorityFeePerGas: 2, maxFeePerGas: 1))
        #expect(error?.description == #"field "maxPriorityFeePerGas": 2 is larger than maxFeePerGas 1"#)
        _ = try TransactionRequest(json: json(request(#""maxFeePerGas":"0x2","maxPriorityFeePerGas":"0x2""#)))
    }

    @Test("access lists are strict")
    func accessLists() throws {
        let key = "0x" + String(repeating: "01", count: 32)
        let parsed = try TransactionRequest(
            json: json(request(#""accessList":[{"address":"\#(to)","storageKeys":["\#(key)","\#(key)"]}]"#)))
        #expect(
            parsed.accessList == [
                AccessListEntry(address: try Address(to), storageKeys: [try Bytes32(hex: key), try Bytes32(hex: key)])
            ])
        #expect(
            try requestError(request(#""accessList":[{"address":"\#(to)","storageKeys":["0x01"]}]"#))
                == .invalidBytes(field: "accessList[0].storageKeys[0]", .wrongLength(expected: 32, actual: 1)))
        #expect(
            try requestError(request(#""accessList":[{"address":"\#(to)"}]"#))
                == .missingField("accessList[0].storageKeys"))
        #expect(
            try requestError(request(#""accessList":[{"storageKeys":[]}]"#)) == .missingField("accessList[0].address"))
        #expect(
            try requestError(request(#""accessList":[1]"#))
                == .wrongJSONKind(field: "accessList[0]", expected: "an object", actual: "number"))
        #expect(
            try requestError(request(#""accessList":[{"address":"0x12","storageKeys":[]}]"#))
                == .invalidAddress(field: "accessList[0].address", .malformed("0x12")))
    }

    @Test("long rejected values are shortened in descriptions")
    func longValues() throws {
        let long = String(repeating: "z", count: 500)
        let error = try requestError(request(#""nonce":"\#(long)""#))
        #expect(error == .invalidQuantity(field: "nonce", value: long))
        #expect((error?.description.count ?? 0) < 120)
    }
}

@Suite("Completing requests")
struct CompletionTests {
    let base = #"{"to":"\#(to)","nonce":"0x1","gas":"0x5208""#

    @Test("a chain id that differs from the requested chain is refused")
    func chainMismatch() throws {
        let parsed = try TransactionRequest(json: json(base + #","gasPrice":"0x1","chainId":"0x89"}"#))
        let error = transactionError { () throws(TransactionError) in try parsed.complete(chainId: 1) }
        #expect(error == .chainIdMismatch(transaction: 137, expected: 1))
        #expect(error?.description == #"field "chainId": 137 does not match the requested chain 1"#)
        #expect(try parsed.complete(chainId: 137).chainId == 137)
        #expect(try parsed.complete(chainId: nil).chainId == 137)
    }

    @Test("the caller's chain id is used when the request has none")
    func callerChain() throws {
        let legacy = try TransactionRequest(json: json(base + #","gasPrice":"0x1"}"#))
        #expect(try legacy.complete(chainId: 10).chainId == 10)
        #expect(try legacy.complete(chainId: nil).chainId == nil)
        let typed = try TransactionRequest(json: json(base + #","maxFeePerGas":"0x2","maxPriorityFeePerGas":"0x1"}"#))
        #expect(try typed.complete(chainId: 10).chainId == 10)
        #expect(
            transactionError { () throws(TransactionError) in try typed.complete(chainId: nil) }
                == .missingField("chainId"))
    }

    @Test("missing fields are listed and the first is reported")
    func missing() throws {
        let partial = try TransactionRequest(json: json(#"{"to":"\#(to)","type":"0x2","maxFeePerGas":"0x2"}"#))
        #expect(partial.missingFields == ["nonce", "gas", "maxPriorityFeePerGas"])
        let error = transactionError { () throws(TransactionError) in try partial.complete(chainId: 1) }
        #expect(error == .missingField("nonce"))
        #expect(error?.description == #"field "nonce" is missing"#)
        let filled = partial.filling(nonce: 0, gasLimit: 21000)
        #expect(
            transactionError { () throws(TransactionError) in try filled.complete(chainId: 1) }
                == .missingField("maxPriorityFeePerGas"))
        // Filling may not break the fee rule unnoticed.
        let tooHigh = filled.filling(maxPriorityFeePerGas: 3)
        #expect(
            transactionError { () throws(TransactionError) in try tooHigh.complete(chainId: 1) }
                == .priorityFeeAboveMaxFee(maxPriorityFeePerGas: 3, maxFeePerGas: 2))
        let complete = try filled.filling(maxPriorityFeePerGas: 1).complete(chainId: 1)
        #expect(
            complete
                == .eip1559(
                    EIP1559Transaction(
                        chainId: 1, nonce: 0, maxPriorityFeePerGas: 1, maxFeePerGas: 2, gasLimit: 21000,
                        to: try Address(to))))
    }
}
