import EthereumPrimitives
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Synchronization
import Testing

/// `AccountSignatureVerifier` against a node whose answers are scripted: what it sends, and how each answer
/// (a hostile one included) becomes a verdict or an error.
@Suite("AccountSignatureVerifier: requests and answers")
struct AccountSignatureVerifierTests {
    /// Answers every batch with `answers` (one per request, in order) and keeps the requests.
    final class ScriptedBatchNode: EthereumNode {
        let answers: [Result<JSONValue, NodeError>]
        private let seen = Mutex<[[NodeRequest]]>([])

        init(_ answers: [Result<JSONValue, NodeError>]) { self.answers = answers }

        var batches: [[NodeRequest]] { seen.withLock { $0 } }

        func call(method: String, params: [JSONValue]) async throws(NodeError) -> JSONValue {
            throw .transport("only batches are scripted")
        }

        func callBatch(_ requests: [NodeRequest]) async throws(NodeError) -> [Result<JSONValue, NodeError>] {
            seen.withLock { $0.append(requests) }
            return Array(answers.prefix(requests.count))
        }
    }

    static let account = StandardPayloads.address("0x00000000000000000000000000000000005afe01")
    static let digest = Keccak256.hash(utf8: "digest")
    static let magicWord = "0x1626ba7e" + String(repeating: "0", count: 56)

    func verdict(_ answer: Result<JSONValue, NodeError>, signature: [UInt8] = [1, 2, 3]) async throws
        -> AccountSignatureVerdict
    {
        let claim = AccountSignatureClaim(account: Self.account, digest: Self.digest, signature: signature)
        return try await AccountSignatureVerifier.verify([claim], node: ScriptedBatchNode([answer]))[0]
    }

    @Test("an ERC-1271 claim is one eth_call of isValidSignature(digest, signature) at the account")
    func requestShape() async throws {
        let node = ScriptedBatchNode([.success(.string(Self.magicWord))])
        let claim = AccountSignatureClaim(account: Self.account, digest: Self.digest, signature: [0xab, 0xcd])
        #expect(try await AccountSignatureVerifier.verify([claim], node: node) == [.valid(.erc1271)])
        let request = try #require(node.batches.first?.first)
        #expect(request.method == "eth_call")
        let call = try #require(request.params.first?.objectValue)
        #expect(call["to"] == .string(Self.account.checksummed))
        let data = try Hex.decode(try #require(call["data"]?.stringValue))
        #expect(Array(data.prefix(36)) == [0x16, 0x26, 0xba, 0x7e] + Self.digest.bytes)
        #expect(data.count == 4 + 32 * 4)  // digest, offset, length, one padded word
        #expect(request.params.last == .string("latest"))
    }

    @Test("answers: only 0x1626ba7e padded with zeros is valid; a revert is invalid; other failures are errors")
    func answers() async throws {
        #expect(try await verdict(.success(.string(Self.magicWord))) == .valid(.erc1271))
        #expect(try await !verdict(.success(.string("0x1626ba7e" + String(repeating: "0", count: 55) + "1"))).isValid)
        #expect(try await !verdict(.success(.string("0x"))).isValid)
        #expect(try await !verdict(.success(.string("0xffffffff" + String(repeating: "0", count: 56)))).isValid)
        #expect(
            try await !verdict(.failure(.rpc(code: 3, message: "execution reverted: GS026", method: "eth_call")))
                .isValid)
        #expect(
            try await !verdict(.failure(.rpc(code: -32000, message: "execution reverted", method: "eth_call"))).isValid)
        await #expect(throws: NodeError.self) {
            _ = try await verdict(.failure(.rpc(code: -32601, message: "method not found", method: "eth_call")))
        }
        await #expect(throws: NodeError.self) { _ = try await verdict(.success(.string("not hex"))) }
        await #expect(throws: NodeError.self) { _ = try await verdict(.success(.number("1"))) }
    }

    @Test("an ERC-6492 claim is a deployless call of the validator; it must answer exactly one word")
    func erc6492Request() async throws {
        let wrapped = ERC6492Wrapper(factory: Self.account, factoryCalldata: [9, 9], signature: [7]).encoded
        let claim = AccountSignatureClaim(account: Self.account, digest: Self.digest, signature: wrapped)
        let one = "0x" + String(repeating: "0", count: 63) + "1"
        let node = ScriptedBatchNode([.success(.string(one))])
        #expect(try await AccountSignatureVerifier.verify([claim], node: node) == [.valid(.erc6492)])
        let call = try #require(node.batches.first?.first?.params.first?.objectValue)
        #expect(call["to"] == nil)
        let data = try Hex.decode(try #require(call["data"]?.stringValue))
        #expect(Array(data.prefix(ERC6492Validator.code.count)) == ERC6492Validator.code)
        #expect(
            try await !verdict(.success(.string("0x" + String(repeating: "0", count: 64))), signature: wrapped).isValid)
        await #expect(throws: NodeError.self) {
            _ = try await verdict(.success(.string("0x01")), signature: wrapped)
        }
    }

    @Test("EOA claims take no request; the others share one batch and keep their order")
    func mixedBatch() async throws {
        let key = try TestKeys.key(TestKeys.betaHex)
        let eoa = AccountSignatureClaim(
            account: key.address, digest: Self.digest, signature: key.sign(prehash: Self.digest).rsv)
        let contract = AccountSignatureClaim(account: Self.account, digest: Self.digest, signature: [1])
        let node = ScriptedBatchNode([
            .success(.string(Self.magicWord)), .failure(.rpc(code: 3, message: "revert", method: "eth_call")),
        ])
        let verdicts = try await AccountSignatureVerifier.verify([contract, eoa, contract], node: node)
        #expect(verdicts[0] == .valid(.erc1271) && verdicts[1] == .valid(.eoa) && !verdicts[2].isValid)
        #expect(node.batches.count == 1 && node.batches[0].count == 2)
    }
}
