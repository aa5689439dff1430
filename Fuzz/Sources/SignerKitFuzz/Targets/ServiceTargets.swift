import Dispatch
import EthereumPrimitives
import SignerKit
import SignerKitService
import SoftwareSigner
import Synchronization

/// Request bodies of the signer service (`signerkit serve`): JSON-RPC 2.0 calls and batches, answered by an
/// in-process service with one software key and no upstream node, whose client is also an approver and whose
/// approval rule holds transactions above 1 ether (held requests, approvals and their status methods).
enum ServiceTargets {
    /// The documented error codes (docs/SERVICE.md).
    static let codes: Set<Int> = [
        -32700, -32600, -32601, -32602, -32000, -32001, -32002, -32003, -32004, -32005, -32010, -32011,
    ]
    static let key = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"  // a test vector key
    static let configuration = FuzzCheck.constant("service configuration") {
        try ServiceConfiguration(
            jsonText: """
                {"listen": "127.0.0.1:0", "keys": [{"keyFile": "unused.hex"}], "chainId": "eip155:2021",
                 "clients": [{"name": "fuzz", "tokenSha256": "\(String(repeating: "ab", count: 32))",
                              "roles": ["approver"], "groups": ["treasury"]},
                             {"name": "second", "tokenSha256": "\(String(repeating: "cd", count: 32))",
                              "roles": ["approver"], "groups": ["treasury"]}],
                 "limits": {"maxBatchSize": 8}}
                """, relativeTo: "/")
    }
    static let service = FuzzCheck.constant("service") {
        try SignerService(
            configuration: configuration, signers: [try SoftwareKeySigner(hex: key)], upstream: [:],
            policies: [
                ApprovalRule(
                    "large",
                    above: [.init(chain: ChainID(eip155: 2021), asset: .native, above: 1_000_000_000_000_000_000)],
                    group: "treasury", required: 2)
            ])
    }

    static let serviceRequest = FuzzTarget(
        name: "service-request",
        summary: "signer-service request bodies (JSON-RPC calls and batches): every answer is JSON-RPC 2.0 with "
            + "the caller's id, a result or a documented error code, at most one answer per call"
    ) { bytes in
        let client = configuration.clients[0]
        let answer = Mutex<[UInt8]??>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let body = await service.answer(body: bytes, client: client)
            answer.withLock { $0 = .some(body) }
            done.signal()
        }
        done.wait()
        guard let outcome = answer.withLock({ $0 }) else {
            FuzzCheck.expect(false, "no outcome")
            return
        }
        let request = try? JSONValue(parsing: bytes)
        guard let body = outcome else {
            // No answer: only notifications (calls without an id) get none.
            let calls = request?.arrayValue ?? (request.map { [$0] } ?? [])
            FuzzCheck.expect(
                !calls.isEmpty && calls.allSatisfy { $0.objectValue != nil && $0["id"] == nil },
                "an answer went missing")
            return
        }
        guard let parsed = try? JSONValue(parsing: body) else {
            FuzzCheck.expect(false, "an answer that is not JSON")
            return
        }
        let answers = parsed.arrayValue ?? [parsed]
        if case .array(let calls)? = request, !calls.isEmpty, calls.count <= configuration.limits.maxBatchSize {
            FuzzCheck.expect(parsed.arrayValue != nil, "a batch answered with one object")
            FuzzCheck.expect(answers.count <= calls.count, "\(answers.count) answers to \(calls.count) calls")
        }
        for answer in answers {
            FuzzCheck.expect(answer["jsonrpc"] == .string("2.0"), "an answer without jsonrpc 2.0")
            FuzzCheck.expect((answer["result"] == nil) != (answer["error"] == nil), "result and error, or neither")
            if let error = answer["error"] {
                let code = error["code"].flatMap { value -> Int? in
                    if case .number(let text) = value { return Int(text) }
                    return nil
                }
                FuzzCheck.expect(
                    code.map(codes.contains) == true, "an undocumented error code: \(error.serialized.prefix(200))")
                FuzzCheck.boundedDescription(error["message"]?.stringValue ?? "")
            }
        }
        if case .object(let object)? = request, let id = object["id"], answers.count == 1,
            object["jsonrpc"] == .string("2.0"), object["method"]?.stringValue != nil
        {
            FuzzCheck.expect(answers[0]["id"] == id, "an answer with another id")
        }
    }
}
