import EthereumPrimitives
import EthereumRPC
import Foundation
import RemoteSigner
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

/// What the remote-signer tests share: the accounts, the actions and how their results are checked.
enum RemoteActions {
    static let alpha = TestKeys.walletKey.address
    static let beta = TestKeys.other.address

    /// A legacy (EIP-155), an EIP-2930 and an EIP-1559 transaction from `from`, complete (no node fills them).
    static func transactions(from: String) -> [JSONValue] {
        let common: KeyValuePairs<String, JSONValue> = [
            "from": .string(from), "to": .string("0x2d5fd9e4a3a225a78329a64d022581275b4ca416"),
            "value": .string("0x2a"), "nonce": .string("0x7"), "gas": .string("0x7530"), "chainId": .string("0x7e5"),
        ]
        func transaction(_ extra: KeyValuePairs<String, JSONValue>) -> JSONValue {
            var object = JSONObject(common)
            for (key, value) in extra { object[key] = value }
            return .object(object)
        }
        let accessList = JSONValue.array([
            .object(
                JSONObject([
                    "address": .string("0x2d5fd9e4a3a225a78329a64d022581275b4ca416"),
                    "storageKeys": .array([.string("0x" + String(repeating: "0", count: 63) + "1")]),
                ]))
        ])
        return [
            transaction(["type": .string("0x0"), "gasPrice": .string("0x3b9aca00")]),
            transaction(["type": .string("0x1"), "gasPrice": .string("0x3b9aca00"), "accessList": accessList]),
            transaction([
                "type": .string("0x2"), "maxFeePerGas": .string("0x3b9aca00"), "maxPriorityFeePerGas": .string("0x1"),
            ]),
        ]
    }

    /// personal_sign (bytes and text), typed data (the Ronin order) and the three transactions, from `from`.
    static func all(from: String) throws -> [WalletRpcAction] {
        try list(
            [
                Actions.personalSign(.sdk, "0x68656c6c6f", from: from),
                Actions.personalSign(.wire, "hello, remote", from: from),
                try Actions.typedData(.sdk, from: from),
            ] + transactions(from: from).map { Actions.signTransaction(.sdk, $0) })
    }

    /// The actions of JSON values.
    static func list(_ actions: [JSONValue]) throws -> [WalletRpcAction] {
        try WalletRpcAction.list(jsonText: Actions.text(actions))
    }

    /// Checks ``all(from:)``'s results on their own (not trusting the dispatcher): the signatures recover to
    /// `account` over digests computed here, the transactions decode to what was asked and recover to it.
    static func check(_ results: [String], account: Address, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(results.count == 6, sourceLocation: sourceLocation)
        let digests = [
            PersonalMessage.digest(Array("hello".utf8)), PersonalMessage.digest(Array("hello, remote".utf8)),
            try TypedData(jsonText: Fixtures.text("ronin_order.json")).hashes().digest,
        ]
        for (digest, text) in zip(digests, results) {
            let signature = try RecoverableSignature(hex: text)
            #expect(signature.isLowS, sourceLocation: sourceLocation)
            #expect(
                try ECDSA.recoverAddress(prehash: digest, signature: signature) == account,
                sourceLocation: sourceLocation)
        }
        for (type, text) in zip([TransactionType.legacy, .eip2930, .eip1559], results[3...]) {
            let signed = try SignedTransaction.decode(hex: text)
            #expect(signed.transaction.type == type, sourceLocation: sourceLocation)
            #expect(try signed.recoverSender() == account, sourceLocation: sourceLocation)
            #expect(signed.transaction.chainId == 2021, sourceLocation: sourceLocation)
            #expect(signed.transaction.value == 42 && signed.transaction.nonce == 7, sourceLocation: sourceLocation)
        }
    }

    /// A dispatcher with `backend` registered.
    static func dispatcher(_ backend: RemoteSignerBackend) throws -> RpcDispatcher {
        let dispatcher = RpcDispatcher()
        try dispatcher.register(backend)
        return dispatcher
    }
}

@Suite("Remote signer: a stand-in for web3signer's eth1 API, honest and lying")
struct RemoteSignerStandInTests {
    /// A client of `standIn`.
    static func client(_ standIn: Web3SignerStandIn) throws -> RemoteSignerClient {
        RemoteSignerClient(endpoint: try RemoteSignerEndpoint(standIn.url.absoluteString), kind: .web3signer)
    }

    @Test("every account listed; messages, typed data and three transaction types signed remotely and verified")
    func honest() async throws {
        let standIn = try await Web3SignerStandIn.start(keys: [TestKeys.alphaHex, TestKeys.betaHex], chainId: 2021)
        defer { standIn.stop() }
        let backend = try await RemoteSignerBackend.connect(try Self.client(standIn))
        #expect(backend.accounts == [RemoteActions.alpha, RemoteActions.beta])
        #expect(backend.methods.contains(.sendTransaction))
        let dispatcher = try RemoteActions.dispatcher(backend)
        for account in backend.accounts {
            let signed = try await dispatcher.sign(actions: try RemoteActions.all(from: account.checksummed))
            try RemoteActions.check(signed.results, account: account)
        }
    }

    @Test(
        "eth_sendTransaction of a remote account: filled and journalled by the dispatcher, signed by the remote, mined; a tampered answer is never broadcast"
    )
    func sendsThroughThePipeline() async throws {
        let node = try await LocalEVM.start(fund: [RemoteActions.alpha], chainId: 2021)
        defer { node.stop() }
        let chain = ChainID(eip155: 2021)
        let nodes: [ChainID: any EthereumNode] = [chain: JSONRPCClient(url: node.url)]
        var configuration = DispatchConfiguration()
        configuration.journal = FileTransactionJournal(
            path: FileManager.default.temporaryDirectory.appendingPathComponent("remote-\(UUID()).journal").path)
        let payment =
            #"[{"from":"\#(TestKeys.alphaAddress)","to":"0x00000000000000000000000000000000000000aa","value":"0x2a"}]"#
        let action = WalletRpcAction(chainId: chain, method: .sendTransaction, params: payment)

        let honest = try await Web3SignerStandIn.start(keys: [TestKeys.alphaHex], chainId: 2021)
        defer { honest.stop() }
        let dispatcher = RpcDispatcher(nodes: nodes, configuration: configuration)
        try dispatcher.register(try await RemoteSignerBackend.connect(try Self.client(honest)))
        let sent = try await dispatcher.sign(actions: [action])
        let count = try await JSONRPCClient(url: node.url).transactionCount(of: RemoteActions.alpha, block: .latest)
        #expect(count == 1, "the remote's transaction was mined: \(sent.results)")

        let liar = try await Web3SignerStandIn.start(
            keys: [TestKeys.alphaHex], chainId: 2021, lie: .tamperedTransaction)
        defer { liar.stop() }
        let refusing = RpcDispatcher(nodes: nodes, configuration: configuration)
        try refusing.register(try await RemoteSignerBackend.connect(try Self.client(liar)))
        do throws(DispatchError) {
            _ = try await refusing.sign(actions: [action])
            Issue.record("a tampered transaction was sent")
        } catch {
            guard case .verificationFailed = error.kind else { throw error }
            #expect(error.broadcast.isEmpty)
        }
        #expect(try await JSONRPCClient(url: node.url).transactionCount(of: RemoteActions.alpha, block: .latest) == 1)
    }

    @Test("POST /api/v1/eth1/sign/{publicKey} signs keccak256(data); the public keys are the accounts'")
    func restSigning() async throws {
        let standIn = try await Web3SignerStandIn.start(keys: [TestKeys.alphaHex], chainId: 2021)
        defer { standIn.stop() }
        let client = try Self.client(standIn)
        let keys = try await client.publicKeys()
        #expect(keys.compactMap { Address(publicKey: $0) } == [RemoteActions.alpha])
        let data = Array("any bytes at all".utf8)
        let signature = try await client.signKeccak(of: data, publicKey: keys[0])
        #expect(try ECDSA.recoverAddress(prehash: Keccak256.hash(data), signature: signature) == RemoteActions.alpha)
        await #expect(
            throws: RemoteSignerError.httpStatus(url: client.endpoint.description, call: "eth1/sign", status: 404)
        ) {
            _ = try await client.signKeccak(of: data, publicKey: [UInt8](repeating: 7, count: 64))
        }
    }

    @Test(
        "a lying remote is refused by the dispatcher's verification: nothing is bundled",
        arguments: Web3SignerStandIn.Lie.allCases)
    func lies(_ lie: Web3SignerStandIn.Lie) async throws {
        let standIn = try await Web3SignerStandIn.start(keys: [TestKeys.alphaHex], chainId: 2021, lie: lie)
        defer { standIn.stop() }
        let dispatcher = try RemoteActions.dispatcher(try await RemoteSignerBackend.connect(try Self.client(standIn)))
        let all = try RemoteActions.all(from: TestKeys.alphaAddress)
        // Which of the actions each lie bends: the others are answered honestly and verify.
        let bent: [Int] =
            switch lie {
            case .otherKey: Array(all.indices)
            case .tamperedTransaction: [3, 4, 5]
            case .wrongV, .highS: [0, 1, 2]
            }
        for index in all.indices {
            do throws(DispatchError) {
                let signed = try await dispatcher.sign(actions: [all[index]])
                #expect(!bent.contains(index), "\(lie): action \(index) was bundled: \(signed.results)")
            } catch {
                #expect(bent.contains(index), "\(lie): action \(index): \(error)")
                guard case .verificationFailed = error.kind else {
                    Issue.record("\(lie): action \(index) not refused by verification: \(error)")
                    continue
                }
            }
        }
        // A lie among honest answers: the whole batch fails, naming the bent action; no bundle comes out.
        let honest = all.indices.first { !bent.contains($0) }.map { all[$0] }
        let batch = (honest.map { [$0] } ?? []) + [all[bent[0]]]
        do throws(DispatchError) {
            let signed = try await dispatcher.sign(actions: batch)
            Issue.record("\(lie): a batch with a lie was bundled: \(signed.results)")
        } catch {
            #expect(error.index == batch.count - 1, "\(lie): \(error)")
        }
    }

    @Test("a remote configured for another chain signs for it: refused by verification (chainId)")
    func otherChain() async throws {
        let standIn = try await Web3SignerStandIn.start(keys: [TestKeys.alphaHex], chainId: 1)
        defer { standIn.stop() }
        let dispatcher = try RemoteActions.dispatcher(try await RemoteSignerBackend.connect(try Self.client(standIn)))
        let transaction = try RemoteActions.list(
            [Actions.signTransaction(.sdk, RemoteActions.transactions(from: TestKeys.alphaAddress)[2])])
        do throws(DispatchError) {
            let signed = try await dispatcher.sign(actions: transaction)
            Issue.record("a transaction for chain 1 was bundled for chain 2021: \(signed.results)")
        } catch {
            guard case .verificationFailed(let reason) = error.kind else { throw error }
            #expect(reason.contains("chainId 1 is not 2021"), "\(reason)")
        }
    }

    @Test("typed errors: unreachable, an account the remote does not hold, the remote's JSON-RPC error")
    func errors() async throws {
        let refusing = try RefusingPort()
        let nowhere = RemoteSignerClient(
            endpoint: try RemoteSignerEndpoint("http://127.0.0.1:\(refusing.port)"), kind: .web3signer)
        do {
            _ = try await RemoteSignerBackend.connect(nowhere)
            Issue.record("connected to a refusing port")
        } catch {
            guard case .unreachable = error else { throw error }
        }
        let standIn = try await Web3SignerStandIn.start(keys: [TestKeys.alphaHex], chainId: 2021)
        defer { standIn.stop() }
        let client = try Self.client(standIn)
        let gamma = try TestKeys.key(TestKeys.gammaHex).address
        await #expect(throws: RemoteSignerError.accountNotHeld(gamma, url: client.endpoint.description)) {
            _ = try await RemoteSignerBackend.connect(client, accounts: [RemoteActions.alpha, gamma])
        }
        // A transaction the remote cannot sign (no nonce, and it has no node): its error, typed, under SignerError.
        let dispatcher = try RemoteActions.dispatcher(try await RemoteSignerBackend.connect(client))
        let incomplete = JSONValue.object(
            JSONObject([
                "from": .string(TestKeys.alphaAddress), "to": .string(TestKeys.alphaAddress), "gas": .string("0x5208"),
                "gasPrice": .string("0x1"), "chainId": .string("0x7e5"),
            ]))
        let unsignable = try RemoteActions.list([Actions.signTransaction(.sdk, incomplete)])
        do throws(DispatchError) {
            _ = try await dispatcher.sign(actions: unsignable)
            Issue.record("an incomplete transaction was signed")
        } catch {
            guard case .backend(.underlying(_, let underlying)) = error.kind,
                case .rpc(let call, let code, let message)? = underlying as? RemoteSignerError
            else {
                Issue.record("not the remote's JSON-RPC error: \(error)")
                return
            }
            #expect(call == "eth_signTransaction" && code == -32602 && message.hasPrefix("\"nonce and gas"))
        }
        // Plain http only to this machine; https anywhere; never credentials or a query in the URL.
        for refused in [
            "http://signer.example.com", "http://127.0.0.1.example.com", "https://user:pw@signer.example.com",
            "https://signer.example.com/?token=x", "ftp://127.0.0.1", "signer.example.com",
        ] {
            #expect(throws: RemoteSignerError.self, "\(refused)") { _ = try RemoteSignerEndpoint(refused) }
        }
        for accepted in [
            "http://127.0.0.1:9000", "http://localhost:9000", "http://[::1]:9000", "https://signer.example.com/w3s",
        ] {
            #expect((try? RemoteSignerEndpoint(accepted)) != nil, "\(accepted)")
        }
    }
}
