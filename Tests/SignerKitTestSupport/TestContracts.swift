import EthereumPrimitives
import Foundation

/// The tests' own contracts (Tests/SignerKitTestSupport/Contracts): Vyper sources and, committed beside each
/// `NAME.vy`, its compiled `NAME.json` (ABI, init and runtime bytecode, compiler version), made by
/// `scripts/evm-node/compile_contracts.py` with the Vyper compiler pinned in the evm venv.
public enum TestContracts {
    /// One compiled contract, as committed.
    public struct Artifact: Sendable {
        /// The contract's name (`BatchExecutor`).
        public let name: String
        /// The compiler that made it (`vyper 0.4.3+commit.…`).
        public let compiler: String
        /// The EVM version it was compiled for.
        public let evmVersion: String
        /// The init code a creation transaction carries (constructor arguments appended).
        public let bytecode: [UInt8]
        /// The code the deployed contract has.
        public let runtimeBytecode: [UInt8]
        /// The artifact file in the bundle.
        public let url: URL
    }

    /// What ``checkCompiled()`` found: the artifacts compared, and those that differ from a fresh compile.
    public struct CompileCheck: Sendable, Equatable {
        /// Every `NAME.json` compared.
        public let checked: [String]
        /// Those that are missing or differ from what their source compiles to now.
        public let stale: [String]
    }

    /// The committed artifact `name` (`BatchExecutor`, `TestToken`).
    public static func artifact(_ name: String) throws -> Artifact {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Contracts") else {
            throw LocalEVMError(description: "contract artifact Contracts/\(name).json is missing from the bundle")
        }
        let json = try JSONValue(parsing: String(contentsOf: url, encoding: .utf8))
        func text(_ key: String) throws -> String {
            guard let value = json[key]?.stringValue else {
                throw LocalEVMError(description: "\(url.lastPathComponent): no \(key)")
            }
            return value
        }
        return Artifact(
            name: try text("contract"), compiler: try text("compiler"), evmVersion: try text("evmVersion"),
            bytecode: try Hex.decode(try text("bytecode")),
            runtimeBytecode: try Hex.decode(try text("runtimeBytecode")),
            url: url)
    }

    /// Deploys the artifact `name` on `evm` with constructor `arguments` (encoded by web3.py from its ABI),
    /// paid by the funded key `deployerKeyHex` (`scripts/evm-node/deploy_contract.py`). Throws unless the
    /// new contract's code is the artifact's runtime bytecode.
    public static func deploy(
        _ name: String, on evm: LocalEVM, deployerKeyHex: String, arguments: [JSONValue] = []
    ) async throws -> (address: Address, gasUsed: UInt64) {
        let artifact = try artifact(name)
        let output = try await PythonOracle.run(
            script("deploy_contract.py", arguments: []),
            input: .object(
                JSONObject([
                    "url": .string(evm.url.absoluteString), "key": .string(deployerKeyHex),
                    "artifact": .string(artifact.url.path), "args": .array(arguments),
                ])))
        guard let text = output["address"]?.stringValue, case .number(let gasText) = output["gasUsed"],
            let gas = UInt64(gasText), output["runtimeMatches"] == .bool(true)
        else { throw PythonOracle.Failure(description: "deploying \(name): \(output.serialized)") }
        return (try Address(text), gas)
    }

    /// Compiles every committed source afresh with the pinned compiler and compares with the committed
    /// artifacts (`compile_contracts.py --check`, which changes nothing).
    public static func checkCompiled() async throws -> CompileCheck {
        let output = try await PythonOracle.run(
            script("compile_contracts.py", arguments: ["--check", "--exit-zero"]), input: .null)
        guard let checked = output["checked"]?.arrayValue?.compactMap(\.stringValue),
            let stale = output["stale"]?.arrayValue?.compactMap(\.stringValue)
        else { throw PythonOracle.Failure(description: "compile_contracts.py --check: \(output.serialized)") }
        return CompileCheck(checked: checked, stale: stale)
    }

    /// A Python one-liner running `scripts/evm-node/<file>` as `__main__` with `arguments`.
    static func script(_ file: String, arguments: [String]) -> String {
        let path = LocalEVM.repoRoot.appendingPathComponent("scripts/evm-node/\(file)").path
        let argv = JSONValue.array(([path] + arguments).map { .string($0) }).serialized
        return "import runpy, sys; sys.argv = \(argv); runpy.run_path(\(JSONValue.string(path).serialized), "
            + "run_name='__main__')"
    }
}
