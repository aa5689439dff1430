import EthereumPrimitives
import SignerKit

/// Typed data and calldata written from the standards' definitions (EIP-2612, Uniswap Permit2's
/// `PermitHash` type strings, ERC-3009, ERC-20), for the preview tests.
enum StandardPayloads {
    static let usdcBase = address("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")
    static let permit2 = address("0x000000000022D473030F116dDEE9F6B43aC78BA3")
    static let spender = address("0x5e771e0000000000000000000000000000005e77")
    static let stranger = address("0x000000000000000000000000000000000badbad0")
    static let merchant = address("0x00000000000000000000000000000000c0ffee00")
    static let unknownToken = address("0x1111111111111111111111111111111111111111")

    static func address(_ text: String) -> Address {
        guard let value = try? Address(text) else { preconditionFailure("bad test address \(text)") }
        return value
    }

    // MARK: ERC-20 calldata

    static func word(_ address: Address) -> [UInt8] { address.word.bytes }
    static func word(_ value: UInt256) -> [UInt8] { value.word.bytes }

    static func transfer(to: Address, amount: UInt256) -> [UInt8] {
        ERC20Calldata.selector("transfer(address,uint256)") + word(to) + word(amount)
    }
    static func approve(spender: Address, amount: UInt256) -> [UInt8] {
        ERC20Calldata.selector("approve(address,uint256)") + word(spender) + word(amount)
    }
    static func transferFrom(from: Address, to: Address, amount: UInt256) -> [UInt8] {
        ERC20Calldata.selector("transferFrom(address,address,uint256)") + word(from) + word(to) + word(amount)
    }
    static func increaseAllowance(spender: Address, amount: UInt256) -> [UInt8] {
        ERC20Calldata.selector("increaseAllowance(address,uint256)") + word(spender) + word(amount)
    }

    /// `eth_sendTransaction` params of a call (no gas, nonce or fees).
    static func call(from: Address, to: Address?, data: [UInt8], value: String = "0x0", chain: ChainID)
        -> WalletRpcAction
    {
        var tx = JSONObject([
            "from": .string(from.checksummed), "value": .string(value), "data": .string(Hex.encode(data)),
        ])
        if let to { tx["to"] = .string(to.checksummed) }
        return WalletRpcAction(chainId: chain, method: "eth_sendTransaction", params: .array([.object(tx)]))
    }

    // MARK: typed data

    static func fields(_ list: [(String, String)]) -> JSONValue {
        .array(list.map { .object(JSONObject(["name": .string($0.0), "type": .string($0.1)])) })
    }

    static let domainFields = fields([
        ("name", "string"), ("version", "string"), ("chainId", "uint256"), ("verifyingContract", "address"),
    ])
    static let permit2DomainFields = fields([
        ("name", "string"), ("chainId", "uint256"), ("verifyingContract", "address"),
    ])

    static func typedData(
        _ types: [(String, JSONValue)], primary: String, domain: JSONObject, message: JSONObject
    ) -> JSONValue {
        var typesObject = JSONObject()
        for (name, definition) in types { typesObject[name] = definition }
        return .object(
            JSONObject([
                "types": .object(typesObject), "primaryType": .string(primary), "domain": .object(domain),
                "message": .object(message),
            ]))
    }

    static func tokenDomain(_ token: Address, chainId: UInt64, name: String = "USD Coin") -> JSONObject {
        JSONObject([
            "name": .string(name), "version": .string("2"), "chainId": .number(String(chainId)),
            "verifyingContract": .string(token.checksummed),
        ])
    }

    static func permit2Domain(chainId: UInt64) -> JSONObject {
        JSONObject([
            "name": .string("Permit2"), "chainId": .number(String(chainId)),
            "verifyingContract": .string(permit2.checksummed),
        ])
    }

    /// EIP-2612: `Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)`.
    static func permit(
        token: Address, chainId: UInt64, owner: Address, spender: Address, value: UInt256, deadline: UInt256
    ) -> JSONValue {
        typedData(
            [
                ("EIP712Domain", domainFields),
                (
                    "Permit",
                    fields([
                        ("owner", "address"), ("spender", "address"), ("value", "uint256"), ("nonce", "uint256"),
                        ("deadline", "uint256"),
                    ])
                ),
            ], primary: "Permit", domain: tokenDomain(token, chainId: chainId),
            message: JSONObject([
                "owner": .string(owner.checksummed), "spender": .string(spender.checksummed),
                "value": .string(value.decimalString), "nonce": .number("0"),
                "deadline": .string(deadline.decimalString),
            ]))
    }

    /// Permit2 `PermitDetails(address token,uint160 amount,uint48 expiration,uint48 nonce)`.
    static let permitDetails = fields([
        ("token", "address"), ("amount", "uint160"), ("expiration", "uint48"), ("nonce", "uint48"),
    ])
    /// Permit2 `TokenPermissions(address token,uint256 amount)`.
    static let tokenPermissions = fields([("token", "address"), ("amount", "uint256")])

    static func details(_ token: Address, _ amount: UInt256, expiration: UInt64) -> JSONValue {
        .object(
            JSONObject([
                "token": .string(token.checksummed), "amount": .string(amount.decimalString),
                "expiration": .number(String(expiration)), "nonce": .number("0"),
            ]))
    }

    /// `PermitSingle(PermitDetails details,address spender,uint256 sigDeadline)`.
    static func permitSingle(
        chainId: UInt64, token: Address, amount: UInt256, spender: Address, expiration: UInt64, sigDeadline: UInt64
    ) -> JSONValue {
        typedData(
            [
                ("EIP712Domain", permit2DomainFields), ("PermitDetails", permitDetails),
                (
                    "PermitSingle",
                    fields([("details", "PermitDetails"), ("spender", "address"), ("sigDeadline", "uint256")])
                ),
            ], primary: "PermitSingle", domain: permit2Domain(chainId: chainId),
            message: JSONObject([
                "details": details(token, amount, expiration: expiration), "spender": .string(spender.checksummed),
                "sigDeadline": .number(String(sigDeadline)),
            ]))
    }

    /// `PermitBatch(PermitDetails[] details,address spender,uint256 sigDeadline)`.
    static func permitBatch(
        chainId: UInt64, tokens: [(Address, UInt256)], spender: Address, expiration: UInt64, sigDeadline: UInt64
    ) -> JSONValue {
        typedData(
            [
                ("EIP712Domain", permit2DomainFields), ("PermitDetails", permitDetails),
                (
                    "PermitBatch",
                    fields([("details", "PermitDetails[]"), ("spender", "address"), ("sigDeadline", "uint256")])
                ),
            ], primary: "PermitBatch", domain: permit2Domain(chainId: chainId),
            message: JSONObject([
                "details": .array(tokens.map { details($0.0, $0.1, expiration: expiration) }),
                "spender": .string(spender.checksummed), "sigDeadline": .number(String(sigDeadline)),
            ]))
    }

    static func permission(_ token: Address, _ amount: UInt256) -> JSONValue {
        .object(JSONObject(["token": .string(token.checksummed), "amount": .string(amount.decimalString)]))
    }

    /// `PermitTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline)`.
    static func permitTransferFrom(chainId: UInt64, token: Address, amount: UInt256, spender: Address, deadline: UInt64)
        -> JSONValue
    {
        typedData(
            [
                ("EIP712Domain", permit2DomainFields), ("TokenPermissions", tokenPermissions),
                (
                    "PermitTransferFrom",
                    fields([
                        ("permitted", "TokenPermissions"), ("spender", "address"), ("nonce", "uint256"),
                        ("deadline", "uint256"),
                    ])
                ),
            ], primary: "PermitTransferFrom", domain: permit2Domain(chainId: chainId),
            message: JSONObject([
                "permitted": permission(token, amount), "spender": .string(spender.checksummed), "nonce": .number("7"),
                "deadline": .number(String(deadline)),
            ]))
    }

    /// `PermitBatchTransferFrom(TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline)`.
    static func permitBatchTransferFrom(
        chainId: UInt64, tokens: [(Address, UInt256)], spender: Address, deadline: UInt64
    )
        -> JSONValue
    {
        typedData(
            [
                ("EIP712Domain", permit2DomainFields), ("TokenPermissions", tokenPermissions),
                (
                    "PermitBatchTransferFrom",
                    fields([
                        ("permitted", "TokenPermissions[]"), ("spender", "address"), ("nonce", "uint256"),
                        ("deadline", "uint256"),
                    ])
                ),
            ], primary: "PermitBatchTransferFrom", domain: permit2Domain(chainId: chainId),
            message: JSONObject([
                "permitted": .array(tokens.map { permission($0.0, $0.1) }), "spender": .string(spender.checksummed),
                "nonce": .number("7"), "deadline": .number(String(deadline)),
            ]))
    }

    /// `PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,
    /// ExampleWitness witness)ExampleWitness(address recipient)TokenPermissions(address token,uint256 amount)`
    /// (Permit2's witness variant: the witness type string is appended by the integrator).
    static func permitWitnessTransferFrom(
        chainId: UInt64, token: Address, amount: UInt256, spender: Address, deadline: UInt64, witnessRecipient: Address
    ) -> JSONValue {
        typedData(
            [
                ("EIP712Domain", permit2DomainFields), ("TokenPermissions", tokenPermissions),
                ("ExampleWitness", fields([("recipient", "address")])),
                (
                    "PermitWitnessTransferFrom",
                    fields([
                        ("permitted", "TokenPermissions"), ("spender", "address"), ("nonce", "uint256"),
                        ("deadline", "uint256"), ("witness", "ExampleWitness"),
                    ])
                ),
            ], primary: "PermitWitnessTransferFrom", domain: permit2Domain(chainId: chainId),
            message: JSONObject([
                "permitted": permission(token, amount), "spender": .string(spender.checksummed), "nonce": .number("7"),
                "deadline": .number(String(deadline)),
                "witness": .object(JSONObject(["recipient": .string(witnessRecipient.checksummed)])),
            ]))
    }

    static let authorizationFields = fields([
        ("from", "address"), ("to", "address"), ("value", "uint256"), ("validAfter", "uint256"),
        ("validBefore", "uint256"), ("nonce", "bytes32"),
    ])

    /// ERC-3009 `TransferWithAuthorization` / `ReceiveWithAuthorization`.
    static func authorization(
        _ primary: String, token: Address, chainId: UInt64, from: Address, to: Address, value: UInt256,
        validBefore: UInt64
    ) -> JSONValue {
        typedData(
            [("EIP712Domain", domainFields), (primary, authorizationFields)], primary: primary,
            domain: tokenDomain(token, chainId: chainId),
            message: JSONObject([
                "from": .string(from.checksummed), "to": .string(to.checksummed), "value": .string(value.decimalString),
                "validAfter": .number("0"), "validBefore": .number(String(validBefore)),
                "nonce": .string("0x" + String(repeating: "ab", count: 32)),
            ]))
    }

    /// ERC-3009 `CancelAuthorization(address authorizer,bytes32 nonce)`.
    static func cancelAuthorization(token: Address, chainId: UInt64, authorizer: Address) -> JSONValue {
        typedData(
            [
                ("EIP712Domain", domainFields),
                ("CancelAuthorization", fields([("authorizer", "address"), ("nonce", "bytes32")])),
            ],
            primary: "CancelAuthorization", domain: tokenDomain(token, chainId: chainId),
            message: JSONObject([
                "authorizer": .string(authorizer.checksummed),
                "nonce": .string("0x" + String(repeating: "cd", count: 32)),
            ]))
    }

    /// An `eth_signTypedData_v4` action.
    static func signTypedData(_ account: Address, _ typedData: JSONValue, chain: ChainID) -> WalletRpcAction {
        WalletRpcAction(
            chainId: chain, method: "eth_signTypedData_v4",
            params: .array([.string(account.checksummed), .string(typedData.serialized)]))
    }

    /// A `personal_sign` action.
    static func personalSign(_ account: Address, _ message: String, chain: ChainID) -> WalletRpcAction {
        WalletRpcAction(
            chainId: chain, method: "personal_sign", params: .array([.string(message), .string(account.checksummed)]))
    }
}
