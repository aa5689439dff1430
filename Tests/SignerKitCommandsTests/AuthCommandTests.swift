import EthereumPrimitives
import EthereumTransactions
import Foundation
import SignerKitTestSupport
import Testing

@testable import SignerKitCommands

/// A row of the vector file eip7702_authorizations.jsonl.
struct AuthorizationVector: CustomTestStringConvertible, Sendable {
    let name, privateKey, authority, authorizationHash, yParity, r, s: String
    let chainId, address, nonce: String
    /// `{"chainId","address","nonce"}`, compact JSON text.
    let inputJSON: String

    init(_ row: JSONValue) throws {
        guard let authorization = row["authorization"], authorization.objectValue != nil else {
            throw FixtureError(description: "missing authorization")
        }
        name = try row.vectorString("name")
        privateKey = try row.vectorString("privateKey")
        authority = try row.vectorString("authority")
        authorizationHash = try row.vectorString("authorizationHash")
        yParity = try row.vectorString("yParity")
        r = try row.vectorString("r")
        s = try row.vectorString("s")
        chainId = try authorization.vectorString("chainId")
        address = try authorization.vectorString("address")
        nonce = try authorization.vectorString("nonce")
        inputJSON = authorization.serialized
    }

    /// What `auth sign` must print: minimal quantities, EIP-55 address, the row's signature.
    var expectedOutput: String {
        get throws {
            let chain = try UInt256(text: chainId).hexQuantity
            let nonce = try UInt256(text: nonce).hexQuantity
            let checksummed = try Address(address).checksummed
            return
                #"{"chainId":"\#(chain)","address":"\#(checksummed)","nonce":"\#(nonce)","yParity":"\#(yParity)","r":"\#(r)","s":"\#(s)"}"#
        }
    }

    var isAnyChain: Bool { (try? UInt256(text: chainId).isZero) ?? false }

    var testDescription: String { name }

    static var all: [AuthorizationVector] {
        get throws { try Fixtures.rows("eip7702_authorizations.jsonl").map(AuthorizationVector.init) }
    }
}

@Suite("auth sign, hash, recover; tx sign type 0x4")
struct AuthCommandTests {
    @Test("auth sign: every vector byte for byte, from a file and stdin", arguments: try AuthorizationVector.all)
    func signVectors(_ vector: AuthorizationVector) async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", vector.privateKey + "\n")
        let file = try directory.write("auth.json", vector.inputJSON)
        var arguments = ["auth", "sign", "--key-file", key, "--allow-delegate", vector.address]
        if vector.isAnyChain { arguments.append("--allow-any-chain") }
        let fromFile = await signerkit(arguments + [file])
        expectSuccess(fromFile, [try vector.expectedOutput])
        expectNoKeyMaterial(fromFile, key: vector.privateKey)
        expectSuccess(await signerkit(arguments + ["-"], stdin: vector.inputJSON), [try vector.expectedOutput])
        // The printed tuple recovers to the key's address through `auth recover`.
        expectSuccess(await signerkit(["auth", "recover"], stdin: fromFile.stdout), [vector.authority])
    }

    @Test("auth hash and auth recover: every vector", arguments: try AuthorizationVector.all)
    func hashAndRecoverVectors(_ vector: AuthorizationVector) async throws {
        expectSuccess(await signerkit(["auth", "hash"], stdin: vector.inputJSON), [vector.authorizationHash])
        let signed =
            #"{"chainId":"\#(vector.chainId)","address":"\#(vector.address)","nonce":"\#(vector.nonce)","yParity":"\#(vector.yParity)","r":"\#(vector.r)","s":"\#(vector.s)"}"#
        expectSuccess(await signerkit(["auth", "recover", "-"], stdin: signed), [vector.authority])
    }

    @Test("decimal quantities are accepted and printed as minimal hex")
    func decimalInput() async throws {
        let vector = try #require(try AuthorizationVector.all.first { !$0.isAnyChain })
        let decimal =
            #"{"chainId":"\#(try UInt256(text: vector.chainId).decimalString)","address":"\#(vector.address.lowercased())","nonce":\#(try UInt256(text: vector.nonce).decimalString)}"#
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", vector.privateKey)
        expectSuccess(
            await signerkit(["auth", "sign", "--key-file", key, "--allow-delegate", vector.address], stdin: decimal),
            [try vector.expectedOutput])
        expectSuccess(await signerkit(["auth", "hash"], stdin: decimal), [vector.authorizationHash])
    }

    @Test("refusals exit 65: delegate not allowed, chain 0 without --allow-any-chain, bad input")
    func refusals() async throws {
        let vectors = try AuthorizationVector.all
        let named = try #require(vectors.first { !$0.isAnyChain })
        let anyChain = try #require(vectors.first { $0.isAnyChain })
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", named.privateKey)
        let other = "0x" + String(repeating: "12", count: 20)
        expectInvalid(
            await signerkit(["auth", "sign", "--key-file", key], stdin: named.inputJSON),
            "refused by policy AllowedDelegates", "is not an allowed delegate")
        expectInvalid(
            await signerkit(["auth", "sign", "--key-file", key, "--allow-delegate", other], stdin: named.inputJSON),
            "is not an allowed delegate")
        expectInvalid(
            await signerkit(
                ["auth", "sign", "--key-file", key, "--allow-delegate", anyChain.address], stdin: anyChain.inputJSON),
            "chain id 0", "valid on every chain")
        // --allow-any-chain alone does not allow a delegate.
        expectInvalid(
            await signerkit(["auth", "sign", "--key-file", key, "--allow-any-chain"], stdin: anyChain.inputJSON),
            "is not an allowed delegate")
        let allow = ["auth", "sign", "--key-file", key, "--allow-delegate", named.address]
        expectInvalid(
            await signerkit(allow, stdin: #"{"chainId":"0x1","address":"\#(named.address)"}"#),
            #"field "nonce" is missing"#)
        expectInvalid(
            await signerkit(
                allow, stdin: #"{"chainId":"0x1","address":"\#(named.address)","nonce":"0x10000000000000000"}"#),
            #"field "nonce""#, "does not fit in 64 bits")
        expectInvalid(
            await signerkit(
                allow, stdin: #"{"chainId":"0x1","address":"\#(named.address)","nonce":"0xffffffffffffffff"}"#),
            "can never be applied")
        expectInvalid(await signerkit(allow, stdin: "[1]"), "must be a JSON object")
        expectInvalid(await signerkit(allow, stdin: "{"), "error: ")
        expectInvalid(
            await signerkit(["auth", "sign", "--key-file", key, "--allow-delegate", "0x1234"], stdin: named.inputJSON),
            "--allow-delegate")
        expectInvalid(
            await signerkit(["auth", "sign", "--allow-delegate", named.address], stdin: named.inputJSON), "--key-file")
    }

    @Test("the policy file's allowedDelegates allows delegates and any chain")
    func policyFile() async throws {
        let vectors = try AuthorizationVector.all
        let anyChain = try #require(vectors.first { $0.isAnyChain })
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", anyChain.privateKey)
        let strict = try directory.write("strict.json", #"{"allowedDelegates":["\#(anyChain.address)"]}"#)
        let loose = try directory.write(
            "loose.json", #"{"allowedDelegates":{"delegates":["\#(anyChain.address)"],"allowAnyChain":true}}"#)
        let bad = try directory.write("bad.json", #"{"allowedDelegates":{"delegates":["0x12"]}}"#)
        expectInvalid(
            await signerkit(["auth", "sign", "--key-file", key, "--policy", strict], stdin: anyChain.inputJSON),
            "chain id 0")
        expectSuccess(
            await signerkit(
                ["auth", "sign", "--key-file", key, "--policy", strict, "--allow-any-chain"], stdin: anyChain.inputJSON),
            [try anyChain.expectedOutput])
        expectSuccess(
            await signerkit(["auth", "sign", "--key-file", key, "--policy", loose], stdin: anyChain.inputJSON),
            [try anyChain.expectedOutput])
        expectInvalid(
            await signerkit(["auth", "sign", "--key-file", key, "--policy", bad], stdin: anyChain.inputJSON),
            "allowedDelegates.delegates[0]")
    }

    @Test("auth recover refuses high s and a yParity of 2; auth hash refuses bad input")
    func recoverRefusals() async throws {
        let vector = try #require(try AuthorizationVector.all.first)
        let highS = Secp256k1Order.order - (try UInt256(text: vector.s))
        let flipped = vector.yParity == "0x0" ? "0x1" : "0x0"
        let twin =
            #"{"chainId":"\#(vector.chainId)","address":"\#(vector.address)","nonce":"\#(vector.nonce)","yParity":"\#(flipped)","r":"\#(vector.r)","s":"\#(highS.hexQuantity)"}"#
        expectInvalid(await signerkit(["auth", "recover"], stdin: twin), "s is above n/2")
        let parity =
            #"{"chainId":"\#(vector.chainId)","address":"\#(vector.address)","nonce":"\#(vector.nonce)","yParity":"0x2","r":"\#(vector.r)","s":"\#(vector.s)"}"#
        expectInvalid(await signerkit(["auth", "recover"], stdin: parity), "yParity 2")
        expectInvalid(await signerkit(["auth", "recover"], stdin: vector.inputJSON), #"field "yParity" is missing"#)
        expectInvalid(
            await signerkit(["auth", "hash"], stdin: #"{"chainId":"0x1","nonce":"0x1"}"#),
            #"field "address" is missing"#)
    }
}

/// The rows of transactions_type4.jsonl (same members as transactions.jsonl, plus `authorities`).
enum SetCodeVector {
    static var all: [TransactionVector] {
        get throws { try Fixtures.rows("transactions_type4.jsonl").map(TransactionVector.init) }
    }
}

@Suite("tx sign: type 0x4")
struct SetCodeTxCommandTests {
    @Test("vectors: raw transaction and hash byte for byte", arguments: try SetCodeVector.all)
    func vectors(_ vector: TransactionVector) async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", vector.privateKey)
        let result = await signerkit(
            ["tx", "sign", "--key-file", key], stdin: JSONValue.object(vector.transaction).serialized)
        expectSuccess(result, ["{\"raw\":\"\(vector.rawTransaction)\",\"hash\":\"\(vector.hash)\"}"])
    }

    @Test("an empty authorization list or a missing to exits 65")
    func refusals() async throws {
        let vector = try #require(try SetCodeVector.all.first)
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", vector.privateKey)
        var empty = vector.transaction
        empty["authorizationList"] = .array([])
        expectInvalid(
            await signerkit(["tx", "sign", "--key-file", key], stdin: JSONValue.object(empty).serialized),
            #"field "authorizationList" is empty"#)
        var creation = vector.transaction
        creation["to"] = nil
        expectInvalid(
            await signerkit(["tx", "sign", "--key-file", key], stdin: JSONValue.object(creation).serialized),
            #"field "to" is missing"#, "cannot create a contract")
    }
}

@Suite("preview: type-4 delegations")
struct SetCodePreviewCommandTests {
    @Test("preview lists each tuple's authority and delegate, in the line and the JSON")
    func delegations() async throws {
        let row = try #require(
            try Fixtures.rows("transactions_type4.jsonl").first { ($0["authorities"]?.arrayValue?.count ?? 0) == 3 })
        let tx = try #require(row["tx"])
        let chainId = try UInt256(text: try #require(tx["chainId"]?.stringValue))
        let authorities = (row["authorities"]?.arrayValue ?? []).compactMap(\.stringValue)
        let tuples = tx["authorizationList"]?.arrayValue ?? []
        let action = JSONValue.object(
            JSONObject([
                "chainId": .string("eip155:\(chainId.decimalString)"), "method": "eth_signTransaction",
                "params": .string(JSONValue.array([tx]).serialized),
            ]))
        let text = JSONValue.array([action]).serialized
        let lines = await signerkit(["preview", "--actions", "-"], stdin: text)
        #expect(lines.status == 0, "\(lines)")
        for (authority, tuple) in zip(authorities, tuples) {
            let delegate = try Address(try #require(tuple["address"]?.stringValue)).checksummed
            #expect(lines.stdout.contains("\(authority) delegates to \(delegate)"), "\(lines)")
        }
        let json = await signerkit(["preview", "--actions", "-", "--json"], stdin: text)
        let previews = try JSONValue(parsing: json.stdout)
        let delegations = previews.arrayValue?.first?["delegations"]?.arrayValue ?? []
        #expect(delegations.compactMap { $0["authority"]?.stringValue } == authorities)
    }
}
