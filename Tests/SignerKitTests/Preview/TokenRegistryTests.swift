import EthereumPrimitives
import SignerKit
import Testing

@Suite("Token registry")
struct TokenRegistryTests {
    @Test("every built-in entry parsed with its EIP-55 checksum (a typo would drop it)")
    func builtIn() {
        #expect(TokenRegistry.builtIn.count == 14)
        for token in TokenRegistry.builtIn { #expect(token.address.checksummed.count == 42) }
        let registry = TokenRegistry()
        let usdc = registry.token(chainId: UInt256(8453), address: StandardPayloads.usdcBase)
        #expect(usdc?.symbol == "USDC")
        #expect(usdc?.format(UInt256(1_234_567)) == "1.234567 USDC")
        #expect(registry.token(chainId: UInt256(1), address: StandardPayloads.usdcBase) == nil)
        #expect(KnownChains.name(of: ChainID(eip155: 42161)) == "Arbitrum One")
        #expect(KnownChains.name(of: ChainID(eip155: 999_999)) == nil)
    }

    @Test("a JSON file adds tokens; malformed entries are refused naming the path")
    func extend() throws {
        let registry = try TokenRegistry().adding(
            jsonText:
                #"[{"chainId":8453,"address":"0x1111111111111111111111111111111111111111","symbol":"TEST","decimals":2}]"#
        )
        #expect(
            registry.token(chainId: UInt256(8453), address: StandardPayloads.unknownToken)?.format(UInt256(150))
                == "1.50 TEST")
        let cases: [(String, String)] = [
            (#"{}"#, "token registry expected a JSON array"),
            (
                #"[{"chainId":"x","address":"0x1111111111111111111111111111111111111111","symbol":"A","decimals":1}]"#,
                "token registry [0].chainId: x is not a chain id"
            ),
            (
                #"[{"chainId":1,"address":"0x11","symbol":"A","decimals":1}]"#,
                "token registry [0].address: invalid address \"0x11\""
            ),
            (
                #"[{"chainId":1,"address":"0x1111111111111111111111111111111111111111","symbol":"A B","decimals":1}]"#,
                "token registry [0].symbol: expected 1 to 16 printable ASCII characters"
            ),
            (
                #"[{"chainId":1,"address":"0x1111111111111111111111111111111111111111","symbol":"A","decimals":99}]"#,
                "token registry [0].decimals: expected an integer from 0 to 77"
            ),
        ]
        for (text, message) in cases {
            let error = #expect(throws: TokenRegistryError.self) { try TokenRegistry().adding(jsonText: text) }
            #expect(error?.description == message)
        }
    }
}
