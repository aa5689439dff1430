import EthereumPrimitives
import SignerKit

/// A JSON-RPC 2.0 error the service answers with: a stable code (docs/SERVICE.md lists them) and a message.
public struct JSONRPCError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The code.
    public let code: Int
    /// The message (the dispatcher's own text for signing errors).
    public let message: String
    /// Structured details (`-32010`: the held request's id, expiry and rule).
    public let data: JSONValue?

    /// An error with `code`, `message` and, if any, `data`.
    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// `-32700`: the body is not JSON.
    public static func parseError(_ detail: String) -> JSONRPCError {
        .init(code: -32700, message: "parse error: \(detail)")
    }
    /// `-32600`: not a JSON-RPC 2.0 request object.
    public static func invalidRequest(_ detail: String) -> JSONRPCError {
        .init(code: -32600, message: "invalid request: \(detail)")
    }
    /// `-32601`: no such method (or not served: `eth_sign` unless enabled, proxied methods without upstream).
    public static func methodNotFound(_ method: String, _ detail: String = "") -> JSONRPCError {
        .init(
            code: -32601,
            message:
                "method \(EchoedText.abbreviated(method).debugDescription) not found\(detail.isEmpty ? "" : ": " + detail)"
        )
    }
    /// `-32602`: the params are wrong for the method.
    public static func invalidParams(_ detail: String) -> JSONRPCError {
        .init(code: -32602, message: "invalid params: \(detail)")
    }
    /// `-32000`: signing failed (a backend error, a verification failure, a reverted or unmined transaction).
    public static let signingFailedCode = -32000
    /// `-32001`: this client may not use the method, account or chain.
    public static func forbidden(_ detail: String) -> JSONRPCError {
        .init(code: -32001, message: "forbidden: \(detail)")
    }
    /// `-32002`: a policy refused the request.
    public static let policyRefusedCode = -32002
    /// `-32003`: the upstream node failed (its own JSON-RPC errors are passed through with their code).
    public static let upstreamCode = -32003
    /// An upstream failure (``upstreamCode``).
    public static func upstream(_ detail: String) -> JSONRPCError {
        .init(code: upstreamCode, message: "upstream: \(detail)")
    }
    /// `-32004`: the batch is larger than `limits.maxBatchSize`.
    public static func batchTooLarge(_ limit: Int) -> JSONRPCError {
        .init(code: -32004, message: "a batch may hold at most \(limit) calls")
    }

    /// `-32005`: a request with this idempotency key is running now; retry after it ends.
    public static func idempotencyInProgress(_ name: String) -> JSONRPCError {
        .init(code: -32005, message: "a request with this \(name) is still running; retry after it ends")
    }
    /// `-32007`: the audit trail could not take the record written before a call that may broadcast, so nothing
    /// was signed.
    public static let auditUnavailable = JSONRPCError(
        code: -32007, message: "the audit trail could not be written; nothing was signed")

    /// `-32008`: the request's time (`limits.requestTimeoutMs`, for the whole HTTP request) ran out before this
    /// call of a batch began; nothing of it was done.
    public static let requestTimeUsedUp = JSONRPCError(
        code: -32008, message: "the request's time limit (limits.requestTimeoutMs) ran out before this call began")

    /// `-32006`: the idempotency store could not answer, so the request was not run.
    public static func idempotencyStore(_ detail: String) -> JSONRPCError {
        .init(code: -32006, message: "idempotency store: \(detail)")
    }

    /// The error for a dispatcher failure: invalid params, forbidden routing, a policy refusal or a signing failure.
    public static func dispatch(_ error: DispatchError) -> JSONRPCError {
        switch error.kind {
        case .invalidAction, .unknownMethod, .invalidParams, .unsupportedChain, .chainMismatch, .accountMismatch,
            .incompleteTransaction, .emptyActionList, .unobservableDependency, .idempotencyKeyReused:
            .init(code: -32602, message: error.description)
        case .unknownAccount: .init(code: -32001, message: error.description)
        case .notPermitted: .init(code: -32001, message: "forbidden: \(error.description)")
        case .policyViolation, .approvalRequired: .init(code: policyRefusedCode, message: error.description)
        case .noNode, .verificationUnavailable: .init(code: upstreamCode, message: error.description)
        case .backend, .verificationFailed, .transactionReverted, .transactionNotMined, .journalFailure,
            .usageStoreFailure, .cancelled:
            .init(code: signingFailedCode, message: error.description)
        }
    }

    /// `{"code":…,"message":…,"data"?:…}`.
    public var json: JSONValue {
        var object = JSONObject(["code": .number(String(code)), "message": .string(message)])
        if let data { object["data"] = data }
        return .object(object)
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
