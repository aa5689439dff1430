import EthereumPrimitives
import Foundation
import SignerKit

extension SignerService {
    /// The status object of `request` (`signerkit_requestStatus`, `signerkit_approve`, `signerkit_reject`, the
    /// webhook): `{"requestId", "status": "held"|"signed"|"rejected"|"expired"|"failed", "approvals": [names],
    /// "result"?, "rule", "expiresAt", "required": [{"group", "count"}], "rejection"?, "error"?}`; `detailed`
    /// adds what an approver decides on: `initiator`, `createdAt`, `digest` and the `previews`.
    static func status(of request: HeldRequest, detailed: Bool = false) -> JSONValue {
        var object = JSONObject([
            "requestId": .string(request.id), "status": .string(request.status.reported),
            "approvals": .array(request.approvers.map(JSONValue.string)),
        ])
        if request.status == .signed, let text = request.result, let result = try? JSONValue(parsing: text) {
            object["result"] = result
        }
        object["rule"] = .string(request.rule)
        object["expiresAt"] = .string(rfc3339(request.expiresAt))
        object["required"] = .array(
            request.requirements.map {
                .object(JSONObject(["group": .string($0.group), "count": .number(String($0.required))]))
            })
        if let rejection = request.rejection {
            var rejected = JSONObject(["by": .string(rejection.client)])
            if let reason = rejection.reason { rejected["reason"] = .string(reason) }
            object["rejection"] = .object(rejected)
        }
        if request.status == .failed, let failure = request.failure { object["error"] = .string(failure) }
        if detailed {
            object["initiator"] = .string(request.initiator)
            object["method"] = .string(request.method)
            object["createdAt"] = .string(rfc3339(request.createdAt))
            object["digest"] = .string(request.digest)
            object["previews"] = (try? JSONValue(parsing: request.previews)) ?? .array([])
        }
        return .object(object)
    }

    /// `2 of treasury` (and more, comma-separated).
    static func quorumText(_ request: HeldRequest) -> String {
        request.requirements.map { "\($0.required) of \($0.group)" }.joined(separator: ", ")
    }

    /// `2027-01-15T08:00:00Z`.
    static func rfc3339(_ unixSeconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(unixSeconds)))
    }

    /// The JSON-RPC error of an approval failure.
    static func rpcError(_ error: ApprovalError) -> JSONRPCError {
        switch error {
        case .unknownRequest, .digestMismatch: .invalidParams(error.description)
        case .initiatorCannotApprove, .notInGroup: .forbidden(error.description)
        case .notPending, .expired: JSONRPCError(code: heldEndedCode, message: error.description)
        case .quorumNotMet, .signingElsewhere: JSONRPCError(code: -32005, message: error.description)
        case .store: JSONRPCError(code: -32006, message: error.description)
        }
    }
}
