import EthereumPrimitives
import SignerKit
import WalletConnectPay

/// Test double only: the actions of the local service's hostile option kinds — each shows the payment's
/// amount while its action asks for something else. A wallet must refuse every one before signing.
enum LocalPayHostileOptions {
    /// A third party that is neither the merchant nor Permit2.
    static let stranger = LocalPayCatalog.constant("0x000000000000000000000000000000000badbad0")
    /// A token that is not the option's asset.
    static let otherToken = LocalPayCatalog.constant("0x1111111111111111111111111111111111111111")

    static func action(
        _ kind: LocalPayService.OptionKind, token: LocalPayCatalog.Token, address: Address, value: UInt256,
        deadline: UInt64, nonce: Bytes32
    ) -> WalletRpcAction {
        switch kind {
        case .hostileUnlimitedPermit:
            return LocalPayCatalog.signTypedDataAction(
                chain: token.chain, account: address,
                typedData: permit(token: token, owner: address, spender: stranger, value: .max, deadline: .max))
        case .hostilePermit2Overspend:
            let doubled = value.multiplied(by: UInt256(2)) ?? .max
            return LocalPayCatalog.signTypedDataAction(
                chain: token.chain, account: address,
                typedData: LocalPayCatalog.permitTransferFrom(
                    token: token, amount: doubled, spender: LocalPayCatalog.settlementContract,
                    nonce: UInt256(word: nonce), deadline: deadline))
        case .hostileOtherToken:
            let other = LocalPayCatalog.Token(
                chain: token.chain, contract: otherToken, networkName: token.networkName, domainName: "Other")
            return LocalPayCatalog.signTypedDataAction(
                chain: token.chain, account: address,
                typedData: LocalPayCatalog.permitTransferFrom(
                    token: other, amount: value, spender: LocalPayCatalog.settlementContract,
                    nonce: UInt256(word: nonce), deadline: deadline))
        case .hostileOtherPayer:
            return LocalPayCatalog.signTypedDataAction(
                chain: token.chain, account: address,
                typedData: LocalPayCatalog.receiveWithAuthorization(
                    token: token, from: stranger, to: LocalPayCatalog.merchantAddress, value: value,
                    validBefore: deadline, nonce: nonce))
        default:
            return WalletRpcAction(
                chainId: token.chain, method: RpcMethod.personalSign.rawValue,
                params: JSONValue.array([
                    .string("I transfer all my assets to \(stranger.checksummed)"), .string(address.checksummed),
                ]))
        }
    }

    /// EIP-2612 `Permit` typed data on the option's token.
    static func permit(
        token: LocalPayCatalog.Token, owner: Address, spender: Address, value: UInt256, deadline: UInt256
    ) -> JSONValue {
        let fields = LocalPayCatalog.fields
        return .object(
            JSONObject([
                "types": .object(
                    JSONObject([
                        "EIP712Domain": fields([
                            ("name", "string"), ("version", "string"), ("chainId", "uint256"),
                            ("verifyingContract", "address"),
                        ]),
                        "Permit": fields([
                            ("owner", "address"), ("spender", "address"), ("value", "uint256"), ("nonce", "uint256"),
                            ("deadline", "uint256"),
                        ]),
                    ])),
                "primaryType": .string("Permit"),
                "domain": .object(
                    JSONObject([
                        "name": .string(token.domainName), "version": .string("2"),
                        "chainId": .string((token.chain.eip155ChainID ?? .zero).hexQuantity),
                        "verifyingContract": .string(token.contract.checksummed),
                    ])),
                "message": .object(
                    JSONObject([
                        "owner": .string(owner.checksummed), "spender": .string(spender.checksummed),
                        "value": .string(value.hexQuantity), "nonce": .string("0x0"),
                        "deadline": .string(deadline.hexQuantity),
                    ])),
            ]))
    }
}
