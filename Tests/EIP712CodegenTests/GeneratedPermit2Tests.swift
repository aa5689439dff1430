import EIP712
import EthereumPrimitives
import Testing

/// Generated Permit2 structs (one schema file: `PermitTransferFrom`, `PermitBatchTransferFrom`, `PermitSingle`).
@Suite struct GeneratedPermit2Tests {
    static let permit2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3"

    @Test func permitTransferFrom() throws {
        let domain = Permit2.EIP712Domain(name: "Permit2", chainId: 8453, verifyingContract: try Address(Self.permit2))
        let permit = Permit2.PermitTransferFrom(
            permitted: Permit2.TokenPermissions(
                token: try Address("0x2d999B1e27E3e8A85ECEfA1B75d8D4512c5177C8"),
                amount: 45_614_832_353_006_657_640_001_557_410_334_352_796),
            spender: try Address("0x25a6674a26b1d9977ff6bf0500190dbc2f9bcfd6"), nonce: 15_905_148_561_691_361_142,
            deadline: 1_800_655_987)
        try VectorCheck.expectMatches(permit, domain: domain, vector: "permit2-single-0")
    }

    @Test func permitBatchTransferFromWithNoTokens() throws {
        let domain = Permit2.EIP712Domain(name: "Permit2", chainId: 42161, verifyingContract: try Address(Self.permit2))
        let permit = Permit2.PermitBatchTransferFrom(
            permitted: [], spender: try Address("0x2a02513c89d48f33bd395a7655eb9b192cab1371"),
            nonce: 8_759_017_630_214_724_286, deadline: 1_800_025_681)
        try VectorCheck.expectMatches(permit, domain: domain, vector: "permit2-batch-0")
    }

    /// No vector has the allowance transfer's `PermitSingle` (uint160, uint48): the runtime's digest of the same
    /// document is the reference.
    @Test func permitSingleMatchesTheRuntime() throws {
        let domain = Permit2.EIP712Domain(name: "Permit2", chainId: 1, verifyingContract: try Address(Self.permit2))
        let permit = Permit2.PermitSingle(
            details: Permit2.PermitDetails(
                token: try Address("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"),
                amount: UInt256.powerOfTwo(160) - 1, expiration: 1_893_456_000, nonce: (1 << 48) - 1),
            spender: try Address("0x3fC91A3afd70395Cd496C647d5a6CC9D4B2b7FAD"), sigDeadline: 1_700_000_000)
        let document = """
            {"types": {
              "EIP712Domain": [{"name": "name", "type": "string"}, {"name": "chainId", "type": "uint256"},
                               {"name": "verifyingContract", "type": "address"}],
              "PermitSingle": [{"name": "details", "type": "PermitDetails"}, {"name": "spender", "type": "address"},
                               {"name": "sigDeadline", "type": "uint256"}],
              "PermitDetails": [{"name": "token", "type": "address"}, {"name": "amount", "type": "uint160"},
                                {"name": "expiration", "type": "uint48"}, {"name": "nonce", "type": "uint48"}]},
             "primaryType": "PermitSingle",
             "domain": {"name": "Permit2", "chainId": 1, "verifyingContract": "\(Self.permit2)"},
             "message": {"details": {"token": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
                                     "amount": "0xffffffffffffffffffffffffffffffffffffffff",
                                     "expiration": 1893456000, "nonce": "281474976710655"},
                         "spender": "0x3fC91A3afd70395Cd496C647d5a6CC9D4B2b7FAD", "sigDeadline": "1700000000"}}
            """
        try VectorCheck.expectMatchesRuntime(permit, domain: domain, typedDataJSON: document)
    }
}
