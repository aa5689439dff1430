import EthereumPrimitives
import EthereumTransactions
import Secp256k1
import Testing

@Suite("One protocol for every transaction type")
struct TransactionFieldsTests {
    static let to = Address(bytes: [UInt8](repeating: 0x35, count: 20))

    static let all: [Transaction] = [
        .legacy(LegacyTransaction(nonce: 9, gasPrice: 20, gasLimit: 21_000, to: to, value: 7, data: [1], chainId: 1)),
        .legacy(LegacyTransaction(nonce: 1, gasPrice: 2, gasLimit: 3, to: nil, value: 0, data: [0x60], chainId: nil)),
        .eip2930(
            EIP2930Transaction(
                chainId: 5, nonce: 2, gasPrice: 30, gasLimit: 50_000, to: to, value: 1, data: [],
                accessList: to.map { [AccessListEntry(address: $0, storageKeys: [.zero])] } ?? [])),
        .eip1559(
            EIP1559Transaction(
                chainId: 8453, nonce: 3, maxPriorityFeePerGas: 4, maxFeePerGas: 40, gasLimit: 60_000, to: to,
                value: 5, data: [0xa9, 0x05, 0x9c, 0xbb])),
    ]

    /// Reads every field through the protocol, as generic code would.
    func summary<T: TransactionFields>(_ tx: T) -> [String] {
        [
            "\(tx.type)", "\(String(describing: tx.signedChainId))", "\(tx.nonce)", "\(tx.gasLimit)",
            "\(String(describing: tx.to))", "\(tx.value)", Hex.encode(tx.data), "\(tx.accessList.count)",
            "\(tx.gasFeeCap)", "\(tx.gasTipCap)", Hex.encode(tx.signingPayload), tx.signingHash.hex,
        ]
    }

    @Test("the enum and the transaction it holds agree on every field, the hash and the signature", arguments: all)
    func enumForwardsToItsTransaction(transaction: Transaction) throws {
        let key = try PrivateKey(hex: "0x" + String(repeating: "46", count: 32))
        let held = transaction.fields
        #expect(summary(transaction) == summary(held))
        #expect(held.transaction == transaction)
        #expect(transaction.chainId == held.signedChainId)
        let viaEnum = transaction.sign(with: key)
        let viaHeld = held.sign(with: key)
        #expect(viaEnum == viaHeld)
        #expect(try SignedTransaction.decode(raw: viaEnum.rawTransaction) == viaEnum)
        #expect(try viaEnum.recoverSender() == key.address)
    }

    @Test("fee caps: gasPrice for legacy and EIP-2930, maxFeePerGas and the tip for EIP-1559")
    func feeCaps() {
        #expect(Self.all.map(\.gasFeeCap) == [20, 2, 30, 40])
        #expect(Self.all.map(\.gasTipCap) == [20, 2, 30, 4])
        #expect(Self.all.map(\.accessList.count) == [0, 0, 1, 0])
    }
}
