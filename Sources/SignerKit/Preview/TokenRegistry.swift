import EthereumPrimitives

/// A token the preview can name: symbol and decimals of a contract on one chain.
public struct KnownToken: Sendable, Hashable {
    /// The EIP-155 chain id.
    public let chainId: UInt64
    /// The token contract.
    public let address: Address
    /// `USDC`.
    public let symbol: String
    /// Decimal places of the base unit (6 for USDC).
    public let decimals: Int

    /// A token.
    public init(chainId: UInt64, address: Address, symbol: String, decimals: Int) {
        self.chainId = chainId
        self.address = address
        self.symbol = symbol
        self.decimals = decimals
    }

    /// `1.500000 USDC`.
    public func format(_ amount: UInt256) -> String { DecimalFormat.string(amount, decimals: decimals) + " " + symbol }
}

/// Why a token registry file was refused.
public struct TokenRegistryError: LocatedJSONError, Sendable, Equatable, CustomStringConvertible {
    /// Where (`[2].address`).
    public let path: String
    /// What is wrong.
    public let problem: String

    /// An error at `path`.
    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    /// `token registry [2].address: …`.
    public var description: String { "token registry \(path.isEmpty ? "" : path + ": ")\(problem)" }
}

/// Tokens the preview formats with decimals and symbol: a small built-in list of widely used stablecoins
/// on the major chains, extendable by JSON (`[{"chainId":8453,"address":"0x…","symbol":"X","decimals":18}]`).
public struct TokenRegistry: Sendable {
    private var tokens: [Key: KnownToken]

    private struct Key: Hashable {
        let chain: UInt64
        let address: Address
    }

    /// The built-in list only.
    public init() { self.init(tokens: Self.builtIn) }

    /// Exactly these tokens (a later entry for the same chain and address wins).
    public init(tokens: [KnownToken]) {
        var table: [Key: KnownToken] = [:]
        for token in tokens { table[Key(chain: token.chainId, address: token.address)] = token }
        self.tokens = table
    }

    /// The token at `address` on `chainId`, if known.
    public func token(chainId: UInt256, address: Address) -> KnownToken? {
        guard let id = chainId.uint64 else { return nil }
        return tokens[Key(chain: id, address: address)]
    }

    /// `1.500000 USDC`, or `unlimited USDC` for an unlimited amount (see ``SigningPreviewer/isUnlimited(_:)``),
    /// when the token is known; else `nil`.
    public func format(_ amount: UInt256, chainId: UInt256, token address: Address) -> String? {
        self.amount(amount, chainId: chainId, token: address).formatted
    }

    /// `amount` of the token at `address` on `chainId`, with its symbol and decimals when known.
    public func amount(_ amount: UInt256, chainId: UInt256, token address: Address) -> TokenAmount {
        TokenAmount(token: address, amount: amount, known: token(chainId: chainId, address: address))
    }

    /// Every known token.
    public var all: [KnownToken] { Array(tokens.values) }

    /// This registry with the tokens of a JSON array added (entries for a known chain and address replace it).
    public func adding(jsonText: String) throws(TokenRegistryError) -> TokenRegistry {
        let root = try JSONReader<TokenRegistryError>(parsing: jsonText)
        guard case .array? = root.value else { throw root.fail("expected a JSON array") }
        var copy = self
        for entry in try root.elements() {
            try entry.object()
            let chainId: UInt64
            switch entry["chainId"].value {
            case .number(let text)?, .string(let text)?:
                guard let id = (try? UInt256(text: text))?.uint64 else {
                    throw entry["chainId"].fail("\(EchoedText.abbreviated(text)) is not a chain id")
                }
                chainId = id
            default: throw entry["chainId"].fail("expected a number")
            }
            let address = try entry["address"].address()
            guard case .string(let symbol)? = entry["symbol"].value, !symbol.isEmpty, symbol.count <= 16,
                symbol.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7f })
            else { throw entry["symbol"].fail("expected 1 to 16 printable ASCII characters") }
            guard case .number(let decimalsText)? = entry["decimals"].value, let decimals = Int(decimalsText),
                (0...77).contains(decimals)
            else { throw entry["decimals"].fail("expected an integer from 0 to 77") }
            let token = KnownToken(chainId: chainId, address: address, symbol: symbol, decimals: decimals)
            copy.tokens[Key(chain: chainId, address: address)] = token
        }
        return copy
    }

    /// USDC (Circle's native USDC), USDT and DAI on Ethereum, Base, OP Mainnet, Arbitrum One and Polygon.
    /// Addresses are written with their EIP-55 checksum, so a typo fails the checksum test.
    public static let builtIn: [KnownToken] = [
        // USDC (Circle, native)
        entry(1, "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "USDC", 6),
        entry(8453, "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "USDC", 6),
        entry(10, "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85", "USDC", 6),
        entry(42161, "0xaf88d065e77c8cC2239327C5EDb3A432268e5831", "USDC", 6),
        entry(137, "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", "USDC", 6),
        // USDT (Tether)
        entry(1, "0xdAC17F958D2ee523a2206206994597C13D831ec7", "USDT", 6),
        entry(10, "0x94b008aA00579c1307B0EF2c499aD98a8ce58e58", "USDT", 6),
        entry(42161, "0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9", "USDT", 6),
        entry(137, "0xc2132D05D31c914a87C6611C10748AEb04B58e8F", "USDT", 6),
        // DAI (Maker)
        entry(1, "0x6B175474E89094C44Da98b954EedeAC495271d0F", "DAI", 18),
        entry(8453, "0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb", "DAI", 18),
        entry(10, "0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1", "DAI", 18),
        entry(42161, "0xDA10009cBd5D07dd0CeCc66161FC93D7c9000da1", "DAI", 18),
        entry(137, "0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063", "DAI", 18),
    ].compactMap { $0 }

    private static func entry(_ chain: UInt64, _ address: String, _ symbol: String, _ decimals: Int) -> KnownToken? {
        // A checksum typo drops the entry (and fails TokenRegistryTests), never a crash.
        (try? Address(address)).map { KnownToken(chainId: chain, address: $0, symbol: symbol, decimals: decimals) }
    }
}
