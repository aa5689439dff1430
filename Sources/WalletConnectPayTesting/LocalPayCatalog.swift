import EthereumPrimitives
import SignerKit
import WalletConnectPay

/// The tokens, contracts and payloads the local Pay service offers: USDC on a few EVM chains,
/// ERC-3009 `ReceiveWithAuthorization`, an ERC-20 `approve` of Permit2 and a Permit2 `PermitTransferFrom`.
public enum LocalPayCatalog {
    /// USDC on one chain.
    public struct Token: Sendable, Equatable {
        /// The chain.
        public let chain: ChainID
        /// The USDC contract.
        public let contract: Address
        /// The network's display name.
        public let networkName: String
        /// The EIP-712 domain `name` of the token (`USD Coin`, or `USDC` on some chains).
        public let domainName: String

        /// `caip19/eip155:<chain>/erc20:<contract>`.
        public var unit: String { "caip19/\(chain)/erc20:\(contract.checksummed)" }
    }

    /// The canonical Permit2 contract (same address on every chain).
    public static let permit2 = constant("0x000000000022d473030f116ddee9f6b43ac78ba3")

    /// Who receives the local service's payments by default.
    public static let merchantAddress = constant("0x00000000000000000000000000000000c0ffee00")

    /// Where the local service pretends to settle Permit2 transfers (the permit's `spender`).
    public static let settlementContract = constant("0x5e771e0000000000000000000000000000005e77")

    /// USDC on Base, Ethereum, Optimism, Arbitrum One, Polygon and Base Sepolia.
    public static let tokens: [Token] = [
        token(8453, "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", "Base", "USD Coin"),
        token(1, "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "Ethereum", "USD Coin"),
        token(10, "0x0b2c639c533813f4aa9d7837caf62653d097ff85", "OP Mainnet", "USD Coin"),
        token(42161, "0xaf88d065e77c8cc2239327c5edb3a432268e5831", "Arbitrum One", "USD Coin"),
        token(137, "0x3c499c542cef5e3811e1192ce70d8cc03d5c3359", "Polygon", "USD Coin"),
        token(84532, "0x036cbd53842c5426634e7929541ec2318f3dcf7e", "Base Sepolia", "USDC"),
    ]

    /// USDC on `chain`, if the service knows it.
    public static func token(on chain: ChainID) -> Token? { tokens.first { $0.chain == chain } }

    private static func token(_ id: UInt64, _ address: String, _ network: String, _ name: String) -> Token {
        Token(chain: ChainID(eip155: id), contract: constant(address), networkName: network, domainName: name)
    }

    /// An address written in the source (a typo is a programming error).
    static func constant(_ text: String) -> Address {
        guard let address = try? Address(text) else { preconditionFailure("invalid address constant \(text)") }
        return address
    }

    /// The display block of USDC on `token`'s network.
    static func display(_ token: Token) -> AmountDisplay {
        AmountDisplay(
            assetSymbol: "USDC", assetName: "USD Coin", decimals: 6,
            iconUrl: "https://assets.walletconnect.com/usdc.png",
            networkName: token.networkName, networkIconUrl: nil)
    }

    // MARK: - Payloads

    /// ERC-3009 `ReceiveWithAuthorization` typed data with a hex `chainId` and hex quantities.
    public static func receiveWithAuthorization(
        token: Token, from: Address, to: Address, value: UInt256, validBefore: UInt64, nonce: Bytes32
    ) -> JSONValue {
        let chainId = token.chain.eip155ChainID ?? .zero
        return .object(
            JSONObject([
                "types": .object(
                    JSONObject([
                        "EIP712Domain": fields([
                            ("name", "string"), ("version", "string"), ("chainId", "uint256"),
                            ("verifyingContract", "address"),
                        ]),
                        "ReceiveWithAuthorization": fields([
                            ("from", "address"), ("to", "address"), ("value", "uint256"), ("validAfter", "uint256"),
                            ("validBefore", "uint256"), ("nonce", "bytes32"),
                        ]),
                    ])),
                "primaryType": .string("ReceiveWithAuthorization"),
                "domain": .object(
                    JSONObject([
                        "name": .string(token.domainName), "version": .string("2"),
                        "chainId": .string(chainId.hexQuantity),
                        "verifyingContract": .string(token.contract.checksummed),
                    ])),
                "message": .object(
                    JSONObject([
                        "from": .string(from.checksummed), "to": .string(to.checksummed),
                        "value": .string(value.hexQuantity),
                        "validAfter": .string("0x0"), "validBefore": .string(UInt256(validBefore).hexQuantity),
                        "nonce": .string(nonce.hex),
                    ])),
            ]))
    }

    /// Permit2 `PermitTransferFrom` typed data (SignatureTransfer) for `amount` of the token.
    public static func permitTransferFrom(
        token: Token, amount: UInt256, spender: Address, nonce: UInt256, deadline: UInt64
    ) -> JSONValue {
        let chainId = token.chain.eip155ChainID ?? .zero
        return .object(
            JSONObject([
                "types": .object(
                    JSONObject([
                        "EIP712Domain": fields([
                            ("name", "string"), ("chainId", "uint256"), ("verifyingContract", "address"),
                        ]),
                        "PermitTransferFrom": fields([
                            ("permitted", "TokenPermissions"), ("spender", "address"), ("nonce", "uint256"),
                            ("deadline", "uint256"),
                        ]),
                        "TokenPermissions": fields([("token", "address"), ("amount", "uint256")]),
                    ])),
                "primaryType": .string("PermitTransferFrom"),
                "domain": .object(
                    JSONObject([
                        "name": .string("Permit2"), "chainId": .string(chainId.hexQuantity),
                        "verifyingContract": .string(permit2.checksummed),
                    ])),
                "message": .object(
                    JSONObject([
                        "permitted": .object(
                            JSONObject([
                                "token": .string(token.contract.checksummed), "amount": .string(amount.hexQuantity),
                            ])),
                        "spender": .string(spender.checksummed), "nonce": .string(nonce.hexQuantity),
                        "deadline": .string(UInt256(deadline).hexQuantity),
                    ])),
            ]))
    }

    /// ABI calldata of `approve(spender, amount)` (selector `0x095ea7b3`).
    public static func approveCalldata(spender: Address, amount: UInt256) -> [UInt8] {
        [0x09, 0x5e, 0xa7, 0xb3] + spender.word.bytes + amount.word.bytes
    }

    /// An `eth_signTypedData_v4` action: params `[address, "<typed data JSON text>"]`.
    static func signTypedDataAction(chain: ChainID, account: Address, typedData: JSONValue) -> WalletRpcAction {
        WalletRpcAction(
            chainId: chain, method: RpcMethod.signTypedDataV4.rawValue,
            params: .array([.string(account.checksummed), .string(typedData.serialized)]))
    }

    /// An `eth_sendTransaction` action without gas, nonce or fees (the wallet fills them).
    static func sendTransactionAction(chain: ChainID, from: Address, to: Address, data: [UInt8]) -> WalletRpcAction {
        WalletRpcAction(
            chainId: chain, method: RpcMethod.sendTransaction.rawValue,
            params: .array([
                .object(
                    JSONObject([
                        "from": .string(from.checksummed), "to": .string(to.checksummed),
                        "data": .string(Hex.encode(data)),
                        "value": .string("0x0"),
                    ]))
            ]))
    }

    /// An EIP-712 struct's field list, `[{"name":…,"type":…}, …]`.
    static func fields(_ list: [(String, String)]) -> JSONValue {
        .array(list.map { .object(JSONObject(["name": .string($0.0), "type": .string($0.1)])) })
    }

    /// The data-collection JSON Schema the local service asks for (the API's example schema).
    static let collectSchemaText = """
        {"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,\
        "required":["fullName","dob","tosConfirmed"],"anyOf":[{"required":["pobCountry","pobAddress"]},\
        {"required":["porCountry","porAddress"]}],"properties":{\
        "fullName":{"type":"string","title":"Full Name","description":"User's full legal name","minLength":1},\
        "dob":{"type":"string","title":"Date of Birth","description":"Date of birth in YYYY-MM-DD format","format":"date"},\
        "pobCountry":{"type":"string","title":"Place of Birth Country","description":"Place of birth country code (ISO 3166-1 alpha-2)","pattern":"^[A-Z]{2}$"},\
        "pobAddress":{"type":"string","title":"Place of Birth Address","description":"Place of birth city and state (e.g., 'New York, NY')","maxLength":200},\
        "porCountry":{"type":"string","title":"Place of Residence Country","description":"Place of residence country code (ISO 3166-1 alpha-2)","pattern":"^[A-Z]{2}$"},\
        "porAddress":{"type":"string","title":"Place of Residence Address","description":"Place of residence street address, city, and state","maxLength":200},\
        "tosConfirmed":{"type":"boolean","title":"Terms of Service Confirmation","description":"Must be true to confirm Terms of Service acceptance","const":true}}}
        """

    /// The fields of the deprecated field-list form.
    static let collectFields: [CollectDataField] = [
        CollectDataField(id: "fullName", name: "Full name", required: true, type: "text"),
        CollectDataField(id: "dob", name: "Date of birth", required: true, type: "date"),
        CollectDataField(id: "tosConfirmed", name: "I accept the terms of service", required: true, type: "checkbox"),
    ]
}
