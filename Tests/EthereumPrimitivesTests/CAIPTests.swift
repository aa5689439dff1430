import EthereumPrimitives
import Foundation
import Testing

@Suite struct CAIPTests {
    // MARK: - CAIP-2

    @Test(
        arguments: [("eip155:1", 1), ("eip155:8453", 8453), ("eip155:2020", 2020), ("eip155:0", 0)]
            as [(String, UInt64)])
    func eip155ChainIDs(text: String, chainID: UInt64) throws {
        let id = try ChainID(text)
        #expect(id.namespace == "eip155")
        #expect(id.reference == String(chainID))
        #expect(id.isEIP155)
        #expect(id.eip155ChainIDUInt64 == chainID)
        #expect(id.eip155ChainID == UInt256(chainID))
        #expect(id.description == text)
        #expect(id == ChainID(eip155: chainID))
        #expect(try ChainID(namespace: "eip155", reference: String(chainID)) == id)
    }

    @Test func bitcoinMainnet() throws {
        let id = try ChainID("bip122:000000000019d6689c085ae165831e93")
        #expect(id.namespace == "bip122")
        #expect(id.reference == "000000000019d6689c085ae165831e93")
        #expect(!id.isEIP155)
        #expect(id.eip155ChainID == nil)
        #expect(id.eip155ChainIDUInt64 == nil)
        #expect(id.description == "bip122:000000000019d6689c085ae165831e93")
    }

    @Test(arguments: [
        "cosmos:cosmoshub-3", "cosmos:Binance-Chain-Tigris", "lip9:9ee11e9df416b18b", "chainstd:8c3444cf8970a9e4",
        "polkadot:b0a8d493285c2df73290dfb7e61f870f", "abc:_", "a-b-c-d1:x",
    ])
    func otherNamespaces(text: String) throws {
        #expect(try ChainID(text).description == text)
    }

    @Test func chainIDsBeyond64Bits() throws {
        let big = String(repeating: "9", count: 32)
        let id = try ChainID("eip155:" + big)
        #expect(id.eip155ChainIDUInt64 == nil)
        #expect(id.eip155ChainID?.decimalString == big)
        #expect(id.reference == big)
        let twoTo64 = try #require(UInt256(UInt64.max).adding(1))
        let wide = try ChainID(eip155ChainID: twoTo64)
        #expect(wide.description == "eip155:18446744073709551616")
        #expect(wide.eip155ChainID == twoTo64)
        #expect(try ChainID(eip155ChainID: UInt256(8453)) == ChainID(eip155: 8453))
        #expect(throws: CAIPError.invalidReference(UInt256.max.decimalString)) {
            try ChainID(eip155ChainID: UInt256.max)
        }
    }

    static let invalidChainIDs: [(String, CAIPError)] = [
        ("eip155", .malformedChainID("eip155")),
        ("", .malformedChainID("")),
        (":1", .invalidNamespace("")),
        ("EIP155:1", .invalidNamespace("EIP155")),
        ("ab:1", .invalidNamespace("ab")),
        ("abcdefghi:1", .invalidNamespace("abcdefghi")),
        ("eip_155:1", .invalidNamespace("eip_155")),
        ("eip155:", .invalidReference("")),
        ("eip155:0x1", .invalidEIP155Reference("0x1")),
        ("eip155:01", .invalidEIP155Reference("01")),
        ("eip155:00", .invalidEIP155Reference("00")),
        ("eip155:-1", .invalidEIP155Reference("-1")),
        ("eip155:mainnet", .invalidEIP155Reference("mainnet")),
        ("eip155:1 ", .invalidReference("1 ")),
        ("eip155:1:2", .invalidReference("1:2")),
        ("eip155:" + String(repeating: "1", count: 33), .invalidReference(String(repeating: "1", count: 33))),
        ("bip122:" + String(repeating: "a", count: 33), .invalidReference(String(repeating: "a", count: 33))),
        ("bip122:abc.def", .invalidReference("abc.def")),
        ("cosmos:é", .invalidReference("é")),
    ]

    @Test(arguments: invalidChainIDs)
    func rejectsInvalidChainIDs(text: String, error: CAIPError) {
        #expect(throws: error) { try ChainID(text) }
    }

    @Test func chainIDCodable() throws {
        let ids = [ChainID(eip155: 1), try ChainID("bip122:000000000019d6689c085ae165831e93")]
        let json = try JSONEncoder().encode(ids)
        #expect(String(decoding: json, as: UTF8.self) == #"["eip155:1","bip122:000000000019d6689c085ae165831e93"]"#)
        #expect(try JSONDecoder().decode([ChainID].self, from: json) == ids)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([ChainID].self, from: Data(#"["eip155:0x1"]"#.utf8))
        }
        #expect(Set([ChainID(eip155: 1), try ChainID("eip155:1")]).count == 1)
    }

    // MARK: - CAIP-10

    /// The EIP-55 form of the account in the CAIP-10 specification's example.
    static let checksummed = "0xAB16a96D359eC26A11e2C2B3D8F8b8942d5bfCb5"
    /// The CAIP-10 specification's example `eip155:1:0xab16a96D359eC26a11e2C2b3d8f8B8942d5Bfcb5` is mixed
    /// case but not the EIP-55 checksum of that address, so strict eip155 validation rejects it.
    static let specExample = "0xab16a96D359eC26a11e2C2b3d8f8B8942d5Bfcb5"

    @Test func specExampleHasWrongChecksum() throws {
        #expect(throws: CAIPError.invalidEIP155Address(.badChecksum(Self.specExample))) {
            try AccountID("eip155:1:" + Self.specExample)
        }
        // The same account in lower case is accepted and formatted with the real checksum.
        let account = try AccountID("eip155:1:" + Self.specExample.lowercased())
        #expect(account.description == "eip155:1:" + Self.checksummed)
        #expect(account.ethereumAddress?.bytes == (try Hex.decode(Self.specExample)))
    }

    @Test func eip155Account() throws {
        let text = "eip155:1:" + Self.checksummed
        let account = try AccountID(text)
        #expect(account.chainID == ChainID(eip155: 1))
        #expect(account.address == Self.checksummed)
        #expect(account.description == text)
        let address = try Address(Self.checksummed)
        #expect(account.ethereumAddress == address)
        #expect(account == AccountID(eip155: 1, address: address))
        #expect(account == AccountID(chainID: ChainID(eip155: 1), address: address))
        #expect(try AccountID(chainID: ChainID(eip155: 1), address: Self.checksummed) == account)
    }

    @Test func eip155AccountsNormalizeToChecksum() throws {
        let lower = try AccountID("eip155:1:" + Self.checksummed.lowercased())
        #expect(lower.address == Self.checksummed)
        #expect(lower.description == "eip155:1:" + Self.checksummed)
        let upper = try AccountID("eip155:1:0x" + Self.checksummed.dropFirst(2).uppercased())
        #expect(upper == lower)
        #expect(Set([lower, upper]).count == 1)
    }

    @Test(arguments: [
        "eip155:0:0x839395e20bbB182fa440d08F850E6c7A8f6F0780",
        "eip155:1:0x22227A31dd842196A246d8f3b775998560eAa61d",
        "eip155:137:0x0495766cD136138Fc492Dd499B8DC87A92D6685b",
        "bip122:000000000019d6689c085ae165831e93:128Lkh3S7CkDTBZ8W7BbpsN3YYizJMp8p6",
        "cosmos:cosmoshub-3:cosmos1t2uflqwqe0fsj0shcfkrvpukewcw40yjj6hdc0",
        "polkadot:b0a8d493285c2df73290dfb7e61f870f:5hmuyxw9xdgbpptgypokw4thfyoe3ryenebr381z9iaegmfy",
        "chainstd:8c3444cf8970a9e41a706fab93e7a6c4:6d9b0b4b9994e8a6afbd3dc3ed983cd51c755afb27cd1dc7825ef59c134a39f7",
        "hedera:mainnet:0.0.1234567890-zbhlt",
        "abc:x:%2F.-",
    ])
    func validAccountsRoundTrip(text: String) throws {
        #expect(try AccountID(text).description == text)
    }

    @Test func nonEIP155AccountsAreKeptVerbatim() throws {
        let account = try AccountID("cosmos:cosmoshub-3:cosmos1t2uflqwqe0fsj0shcfkrvpukewcw40yjj6hdc0")
        #expect(account.chainID.namespace == "cosmos")
        #expect(account.chainID.reference == "cosmoshub-3")
        #expect(account.address == "cosmos1t2uflqwqe0fsj0shcfkrvpukewcw40yjj6hdc0")
        #expect(account.ethereumAddress == nil)
    }

    static let invalidAccountIDs: [(String, CAIPError)] = {
        let badChecksum = "0xaB16a96D359eC26A11e2C2B3D8F8b8942d5bfCb5"  // one letter's case flipped
        let long = String(repeating: "a", count: 129)
        return [
            ("eip155:1", .malformedAccountID("eip155:1")),
            ("eip155", .malformedAccountID("eip155")),
            ("eip155:1:", .invalidAccountAddress("")),
            ("EIP155:1:" + checksummed, .invalidNamespace("EIP155")),
            ("eip155:0x1:" + checksummed, .invalidEIP155Reference("0x1")),
            (":1:" + checksummed, .invalidNamespace("")),
            ("eip155::" + checksummed, .invalidReference("")),
            ("eip155:1:" + badChecksum, .invalidEIP155Address(.badChecksum(badChecksum))),
            ("eip155:1:0x123", .invalidEIP155Address(.malformed("0x123"))),
            (
                "eip155:1:ab16a96D359eC26a11e2C2b3d8f8B8942d5Bfcb5",
                .invalidEIP155Address(.malformed("ab16a96D359eC26a11e2C2b3d8f8B8942d5Bfcb5"))
            ),
            ("eip155:1:" + checksummed + "00", .invalidEIP155Address(.malformed(checksummed + "00"))),
            (
                "eip155:1:0xZZ16a96D359eC26a11e2C2b3d8f8B8942d5Bfcb5",
                .invalidEIP155Address(.malformed("0xZZ16a96D359eC26a11e2C2b3d8f8B8942d5Bfcb5"))
            ),
            ("eip155:1:" + checksummed + ":extra", .invalidAccountAddress(checksummed + ":extra")),
            ("cosmos:cosmoshub-3:" + long, .invalidAccountAddress(long)),
            ("cosmos:cosmoshub-3:a b", .invalidAccountAddress("a b")),
            ("cosmos:cosmoshub-3:a/b", .invalidAccountAddress("a/b")),
        ]
    }()

    @Test(arguments: invalidAccountIDs)
    func rejectsInvalidAccountIDs(text: String, error: CAIPError) {
        #expect(throws: error) { try AccountID(text) }
    }

    @Test func accountAddressLengthLimit() throws {
        let max = String(repeating: "a", count: 128)
        #expect(try AccountID("cosmos:cosmoshub-3:" + max).address == max)
    }

    @Test func accountIDCodable() throws {
        let account = try AccountID("eip155:8453:" + Self.checksummed.lowercased())
        let json = try JSONEncoder().encode(account)
        #expect(String(decoding: json, as: UTF8.self) == #""eip155:8453:\#(Self.checksummed)""#)
        #expect(try JSONDecoder().decode(AccountID.self, from: json) == account)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(AccountID.self, from: Data(#""eip155:1:0x123""#.utf8))
        }
    }

    @Test func errorDescriptions() {
        #expect(
            CAIPError.invalidNamespace("EIP155").description
                == #"caip: invalid namespace "EIP155" (expected 3-8 characters of [-a-z0-9])"#)
        #expect(CAIPError.invalidEIP155Reference("0x1").description.contains(#""0x1""#))
        #expect(CAIPError.malformedChainID("eip155").description.contains("namespace:reference"))
        #expect(CAIPError.invalidEIP155Address(.badChecksum("0xAb")).description.contains("checksum"))
    }
}
