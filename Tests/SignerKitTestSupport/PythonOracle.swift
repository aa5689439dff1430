import EthereumPrimitives
import Foundation

/// An independent reference in Python (eth-account, eth-abi in the test venv): a script reads JSON on stdin
/// and prints JSON. The child is read and awaited on a thread of its own, never on Swift's cooperative pool
/// (two threads on a two-core machine: two blocked oracles stall every other test of the run).
public enum PythonOracle {
    /// Why the oracle gave no answer.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// Runs `script` with the venv's Python, `input` on its standard input; its standard output as JSON.
    public static func run(_ script: String, input: JSONValue) async throws -> JSONValue {
        try await LocalEVM.ensureInstalled()
        return try await LocalEVM.pythonTurns.run { try await runInTurn(script, input: input) }
    }

    /// ``run(_:input:)`` once it is this oracle's turn.
    private static func runInTurn(_ script: String, input: JSONValue) async throws -> JSONValue {
        let process = Process()
        process.executableURL = LocalEVM.venv.appendingPathComponent("bin/python")
        process.arguments = ["-c", script]
        let stdin = ChildProcess.makePipe()
        let stdout = ChildProcess.makePipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try await ChildProcess.run(process)
        let payload = Data(input.serialized.utf8)
        let (data, exited) = await ChildProcess.onThread { () -> (Data, Bool) in
            stdin.fileHandleForWriting.write(payload)
            try? stdin.fileHandleForWriting.close()
            let data = ChildProcess.readToEnd(stdout)
            // Python answers in a second or two; the bound only ends a hang.
            return (data, ChildProcess.awaitExit(process, within: .seconds(30)))
        }
        guard exited, process.terminationStatus == 0 else {
            throw Failure(description: "the Python oracle did not exit cleanly (status \(process.terminationStatus))")
        }
        return try JSONValue(parsing: String(decoding: data, as: UTF8.self))
    }
}
