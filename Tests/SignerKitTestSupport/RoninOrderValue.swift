import EthereumPrimitives

/// The Ronin MarketGateway `Order` as an application writes it without the code generator: a plain
/// `Encodable` struct, members in the schema's order (the EIP-712 tests and the benchmark executable hash it).
public struct RoninOrderValue: Encodable, Sendable {
    /// One asset of the order.
    public struct Asset: Encodable, Sendable {
        /// The token standard: 0 ERC-20, 1 ERC-721, 2 ERC-1155 (`uint8`).
        public let erc: UInt8
        /// The token contract.
        public let addr: Address
        /// The token id.
        public let id: UInt256
        /// The quantity (0 for an ERC-721).
        public let quantity: UInt256

        /// An asset of these fields.
        public init(erc: UInt8, addr: Address, id: UInt256, quantity: UInt256) {
            self.erc = erc
            self.addr = addr
            self.id = id
            self.quantity = quantity
        }
    }

    /// The account selling.
    public let maker: Address
    /// The order kind (`uint8`).
    public let kind: UInt8
    /// What is sold.
    public let assets: [Asset]
    /// Unix seconds after which the order is void.
    public let expiredAt: UInt256
    /// The token paid with.
    public let paymentToken: Address
    /// Unix seconds from which the order is valid.
    public let startedAt: UInt256
    /// The starting price, in the payment token's base units.
    public let basePrice: UInt256
    /// Unix seconds at which the price reaches `endedPrice` (0: fixed price).
    public let endedAt: UInt256
    /// The price at `endedAt`.
    public let endedPrice: UInt256
    /// The state the order must be in (0: any).
    public let expectedState: UInt256
    /// The maker's order nonce.
    public let nonce: UInt256
    /// The market fee, in basis points.
    public let marketFeePercentage: UInt256

    /// An order of these fields.
    public init(
        maker: Address, kind: UInt8, assets: [Asset], expiredAt: UInt256, paymentToken: Address, startedAt: UInt256,
        basePrice: UInt256, endedAt: UInt256, endedPrice: UInt256, expectedState: UInt256, nonce: UInt256,
        marketFeePercentage: UInt256
    ) {
        self.maker = maker
        self.kind = kind
        self.assets = assets
        self.expiredAt = expiredAt
        self.paymentToken = paymentToken
        self.startedAt = startedAt
        self.basePrice = basePrice
        self.endedAt = endedAt
        self.endedPrice = endedPrice
        self.expectedState = expectedState
        self.nonce = nonce
        self.marketFeePercentage = marketFeePercentage
    }
}
