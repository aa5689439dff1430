import EthereumPrimitives
import Foundation

/// Real Safe v1.4.1 contracts on a ``LocalEVM``: `scripts/evm-node/safe_fixture.py` deploys the singleton, the
/// proxy factory, the CompatibilityFallbackHandler and MultiSendCallOnly (bytecode from the pinned PyPI package safe-eth-py) and
/// the Safes asked for, and answers cross-checks with web3.py, independently of SignerKit.
public struct SafeDeployment: Sendable {
    /// A Safe to make: its owners, threshold, CREATE2 salt nonce, and whether to deploy it (else only its
    /// address and factory call are computed: a counterfactual Safe).
    public struct Spec: Sendable {
        /// The owners.
        public let owners: [Address]
        /// Signatures the Safe requires.
        public let threshold: Int
        /// The CREATE2 salt nonce of `createProxyWithNonce`.
        public let saltNonce: Int
        /// Whether to deploy it (else counterfactual).
        public let deploy: Bool

        /// A Safe of `owners`, `threshold` of them signing, deployed unless `deploy` is false.
        public init(owners: [Address], threshold: Int, saltNonce: Int, deploy: Bool = true) {
            self.owners = owners
            self.threshold = threshold
            self.saltNonce = saltNonce
            self.deploy = deploy
        }
    }

    /// One Safe made.
    public struct Safe: Sendable {
        /// Its address (computed by the factory for a counterfactual Safe).
        public let address: Address
        /// The proxy factory.
        public let factory: Address
        /// `createProxyWithNonce(singleton, initializer, saltNonce)`: deploys this Safe.
        public let factoryCalldata: [UInt8]
        /// Whether it has code.
        public let deployed: Bool
    }

    /// What a cross-check asks web3.py: `isValidSignature(hash, signature)` of `account` by a plain `eth_call`;
    /// with `deployBy` (a funded key's hex), the Safe's factory call is first sent as a real transaction.
    public struct Check: Sendable {
        /// The account asked.
        public let account: Address
        /// The hash it is asked about.
        public let hash: Bytes32
        /// The signature bytes given to it.
        public let signature: [UInt8]
        /// A funded key and the counterfactual Safe to deploy first, if any.
        public let deployBy: (keyHex: String, safe: Safe)?

        /// A check of `signature` for `account` over `hash`.
        public init(account: Address, hash: Bytes32, signature: [UInt8], deployBy: (keyHex: String, safe: Safe)? = nil)
        {
            self.account = account
            self.hash = hash
            self.signature = signature
            self.deployBy = deployBy
        }
    }

    /// The Safe v1.4.1 singleton.
    public let singleton: Address
    /// The SafeProxyFactory.
    public let factory: Address
    /// The CompatibilityFallbackHandler.
    public let handler: Address
    /// MultiSendCallOnly v1.4.1: what a Safe delegate-calls to run a batch.
    public let multiSendCallOnly: Address
    /// The Safes made, in spec order.
    public let safes: [Safe]

    /// The fixture script.
    static var script: String {
        let path = LocalEVM.repoRoot.appendingPathComponent("scripts/evm-node/safe_fixture.py").path
        return "import runpy; runpy.run_path(\(JSONValue.string(path).serialized), run_name='__main__')"
    }

    /// Deploys the Safe contracts and `specs` on `evm`, paid by the key `deployerKeyHex` (funded there).
    public static func deploy(on evm: LocalEVM, deployerKeyHex: String, safes specs: [Spec]) async throws
        -> SafeDeployment
    {
        let input = JSONValue.object(
            JSONObject([
                "url": .string(evm.url.absoluteString), "key": .string(deployerKeyHex),
                "safes": .array(
                    specs.map { spec in
                        .object(
                            JSONObject([
                                "owners": .array(spec.owners.map { .string($0.checksummed) }),
                                "threshold": .number(String(spec.threshold)),
                                "saltNonce": .number(String(spec.saltNonce)), "deploy": .bool(spec.deploy),
                            ]))
                    }),
            ]))
        let output = try await PythonOracle.run(script, input: input)
        func address(_ value: JSONValue?) throws -> Address {
            guard let text = value?.stringValue else {
                throw PythonOracle.Failure(description: "no address in \(output)")
            }
            return try Address(text)
        }
        let safes = try (output["safes"]?.arrayValue ?? []).map { safe in
            Safe(
                address: try address(safe["address"]), factory: try address(safe["factory"]),
                factoryCalldata: try Hex.decode(safe["factoryCalldata"]?.stringValue ?? ""),
                deployed: safe["deployed"] == .bool(true))
        }
        guard safes.count == specs.count else { throw PythonOracle.Failure(description: "safes missing: \(output)") }
        return SafeDeployment(
            singleton: try address(output["singleton"]), factory: try address(output["factory"]),
            handler: try address(output["handler"]), multiSendCallOnly: try address(output["multiSendCallOnly"]),
            safes: safes)
    }

    /// web3.py's answers: the `bytes4` `isValidSignature` returned (`0x1626ba7e` when valid), `revert: …`,
    /// or `no code`.
    public static func crossCheck(on evm: LocalEVM, _ checks: [Check]) async throws -> [String] {
        let items: [JSONValue] = checks.map { check in
            var object = JSONObject([
                "account": .string(check.account.checksummed), "hash": .string(check.hash.hex),
                "signature": .string(Hex.encode(check.signature)),
            ])
            if let deploy = check.deployBy {
                let call = JSONObject([
                    "key": .string(deploy.keyHex), "factory": .string(deploy.safe.factory.checksummed),
                    "factoryCalldata": .string(Hex.encode(deploy.safe.factoryCalldata)),
                ])
                object.members.append(JSONObject.Member(key: "deploy", value: .object(call)))
            }
            return .object(object)
        }
        let output = try await PythonOracle.run(
            script, input: .object(JSONObject(["url": .string(evm.url.absoluteString), "check": .array(items)])))
        let answers = (output["answers"]?.arrayValue ?? []).compactMap(\.stringValue)
        guard answers.count == checks.count else { throw PythonOracle.Failure(description: "answers: \(output)") }
        return answers
    }
}
