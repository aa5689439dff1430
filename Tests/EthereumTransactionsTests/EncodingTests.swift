import EthereumPrimitives
import EthereumTransactions
import Secp256k1
import Testing

@Suite("Encoding and signing")
struct EncodingTests {
    /// The worked example in EIP-155.
    @Test("EIP-155 example: signing payload, hash and signed transaction")
    func eip155Example() throws {
        let tx = LegacyTransaction(
            nonce: 9, gasPrice: 20_000_000_000, gasLimit: 21000,
            to: try Address("0x3535353535353535353535353535353535353535"),
            value: try UInt256(text: "1000000000000000000"), data: [], chainId: 1)
        #expect(
            Hex.encode(tx.signingPayload)
                == "0xec098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080018080")
        #expect(tx.signingHash.hex == "0xdaf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53")
        let key = try PrivateKey(hex: "0x" + String(repeating: "46", count: 32))
        let signed = tx.sign(with: key)
        #expect(
            signed.rawTransactionHex
                == "0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83"
        )
        #expect(try signed.recoverSender() == key.address)
    }

    @Test("typed signing payloads start with the type byte; legacy ones are plain RLP lists")
    func envelopes() throws {
        for row in Fixtures.transactions {
            let tx = try TransactionRequest(json: row.tx).complete(chainId: row.chainId)
            let payload = tx.signingPayload
            switch tx.type {
            case .legacy: #expect(payload.first ?? 0 >= 0xc0)
            case .eip2930, .eip1559, .eip7702: #expect(payload.first == tx.type.rawValue)
            case .roninSponsored: Issue.record("a sponsored transaction was completed: \(row.name)")
            }
            #expect(Keccak256.hash(payload) == tx.signingHash)
            // The per-type entry points agree with the enum.
            switch tx {
            case .legacy(let legacy): #expect(legacy.signingHash == tx.signingHash)
            case .eip2930(let typed): #expect(typed.signingHash == tx.signingHash)
            case .eip1559(let typed): #expect(typed.signingHash == tx.signingHash)
            case .eip7702(let typed): #expect(typed.signingHash == tx.signingHash)
            case .roninSponsored: Issue.record("a sponsored transaction was completed: \(row.name)")
            }
        }
    }

    /// 35 + 2·chainId + recid needs 257 bits above 2^255 − 18: v becomes a 33-byte integer.
    @Test(
        "legacy transactions round-trip for every chain id width",
        arguments: [
            "0", "1", "18446744073709551615", "18446744073709551616",
            "57896044618658097711785492504343953926634992332820282019968",  // ~2^195
            "57896044618658097711785492504343953926634992332820282019728792003956564819949",  // 2^255 − 19
            "57896044618658097711785492504343953926634992332820282019728792003956564819950",  // 2^255 − 18
            "57896044618658097711785492504343953926634992332820282019728792003956564819967",  // 2^255 − 1
            "57896044618658097711785492504343953926634992332820282019728792003956564819968",  // 2^255
            "115792089237316195423570985008687907853269984665640564039457584007913129639935",  // 2^256 − 1
        ])
    func legacyChainIds(chainIdText: String) throws {
        let chainId = try UInt256(text: chainIdText)
        let key = try PrivateKey(hex: "0x" + String(repeating: "22", count: 32))
        let tx = LegacyTransaction(
            nonce: 1, gasPrice: 2, gasLimit: 21000, to: try Address("0x3535353535353535353535353535353535353535"),
            value: 3, data: [0x01], chainId: chainId)
        let signed = tx.sign(with: key)
        let decoded = try SignedTransaction.decode(raw: signed.rawTransaction)
        #expect(decoded == signed)
        #expect(decoded.transaction.chainId == chainId)
        #expect(try decoded.recoverSender() == key.address)
        // v is the 7th field; it needs a 33rd byte exactly when 35 + 2·chainId + recid ≥ 2^256.
        let vBytes = try RLP.decode(signed.rawTransaction).asList()[6].asBytes()
        let threshold = try UInt256(
            text: "57896044618658097711785492504343953926634992332820282019728792003956564819950")  // 2^255 − 18
        let needs257Bits = chainId > threshold || (chainId == threshold && signed.signature.recoveryId == 1)
        if let v = signed.signature.legacyV(chainId: chainId) {
            #expect(!needs257Bits)
            #expect(vBytes == v.minimalBigEndianBytes)
        } else {
            #expect(needs257Bits)
            #expect(vBytes.count == 33)
        }
    }

    @Test("pre-EIP-155 and EIP-155 legacy v")
    func legacyVValues() throws {
        let key = try PrivateKey(hex: "0x" + String(repeating: "33", count: 32))
        let base = LegacyTransaction(nonce: 0, gasPrice: 1, gasLimit: 21000, to: nil, data: [0x60], chainId: nil)
        let pre = base.sign(with: key)
        let fields = try RLP.decode(pre.rawTransaction).asList()
        #expect(try fields[6].uint64() == 27 + UInt64(pre.signature.recoveryId))
        var protected = base
        protected.chainId = 56
        let post = protected.sign(with: key)
        let postFields = try RLP.decode(post.rawTransaction).asList()
        #expect(try postFields[6].uint64() == 35 + 2 * 56 + UInt64(post.signature.recoveryId))
        #expect(pre.transaction.signingHash != post.transaction.signingHash)
        #expect(try SignedTransaction.decode(raw: pre.rawTransaction).transaction.chainId == nil)
    }

    @Test("transaction accessors")
    func accessors() throws {
        let to = try Address("0x3535353535353535353535353535353535353535")
        let entry = AccessListEntry(address: to, storageKeys: [.zero])
        let tx = Transaction.eip1559(
            EIP1559Transaction(
                chainId: 5, nonce: 6, maxPriorityFeePerGas: 7, maxFeePerGas: 8, gasLimit: 9, to: to, value: 10,
                data: [1], accessList: [entry]))
        #expect(tx.type == .eip1559)
        #expect(tx.chainId == 5)
        #expect(tx.nonce == 6)
        #expect(tx.gasFeeCap == 8)
        #expect(tx.gasLimit == 9)
        #expect(tx.to == to)
        #expect(tx.value == 10)
        #expect(tx.data == [1])
        #expect(tx.accessList == [entry])
        #expect(TransactionType.eip2930.hexQuantity == "0x1")
        let legacy = Transaction.legacy(LegacyTransaction(nonce: 0, gasPrice: 4, gasLimit: 1, to: nil, chainId: nil))
        #expect(legacy.accessList.isEmpty)
        #expect(legacy.gasFeeCap == 4)
    }
}
