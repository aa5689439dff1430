import EthereumPrimitives

/// What one rule decided on one action, without anything being signed: a shadow policy's decision in the
/// audit record, or a recorded request re-decided by `signerkit policy replay`.
public struct PolicyVerdict: Sendable, Hashable {
    /// What the rule decided.
    public enum Outcome: Sendable, Hashable {
        /// The rule refuses the action, for this reason.
        case refuse(String)
        /// An approval rule holds the action for approvers of this group.
        case hold(group: String)
        /// The action could not be read at all (no rule ran).
        case invalid(String)
    }

    /// The action's index in its call (`nil`: the call as a whole).
    public let action: Int?
    /// The rule (the policy's name; `resolution` for an action that could not be read).
    public let rule: String
    /// What it decided.
    public let outcome: Outcome

    /// A verdict.
    public init(action: Int?, rule: String, outcome: Outcome) {
        self.action = action
        self.rule = rule
        self.outcome = outcome
    }

    /// `refuse`, `hold` or `invalid`.
    public var kind: String {
        switch outcome {
        case .refuse: "refuse"
        case .hold: "hold"
        case .invalid: "invalid"
        }
    }

    /// The reason, or the approver group of a hold.
    public var detail: String {
        switch outcome {
        case .refuse(let reason), .invalid(let reason): reason
        case .hold(let group): group
        }
    }

    /// As JSON: `{"action": I, "rule": R, "decision": "refuse"|"hold"|"invalid", "detail": …}`.
    public var json: JSONObject {
        JSONObject([
            "action": action.map { .number(String($0)) } ?? .null, "rule": .string(rule), "decision": .string(kind),
            "detail": .string(EchoedText.abbreviated(detail, limit: 200)),
        ])
    }
}

/// Decides actions under a set of policies without signing them and without a backend or node: every rule's
/// refusal of every action (and of each call of a batch), the batch rules over the whole call, the approval
/// rules' holds, and — for a call all of those pass — the limits over time (``UsagePolicy``).
///
/// The dispatcher enforces the same rules when it prepares a batch (and stops at the first refusal); the judge
/// reports them all, rule by rule, for a policy loaded in shadow and for `signerkit policy replay`. Limits over
/// time count in the policies' own store (give the judge's policies a store of their own, never the enforced
/// one) and at the time of the policies' clock: a call the judge would let through is charged there, as the
/// dispatcher charges a call it signs, so later calls are judged against what the candidate would have let
/// through before them.
public struct PolicyJudge: Sendable {
    private let policies: [any ActionPolicy]
    private let previewer: SigningPreviewer
    private let usage: UsageAdmissions

    /// A judge of `policies` (as a policy file loads them).
    public init(policies: [any ActionPolicy], previewer: SigningPreviewer = SigningPreviewer()) {
        self.policies = DefaultTransactionCaps.applied(to: policies)
        self.previewer = previewer
        usage = UsageAdmissions(policies: self.policies.compactMap { $0 as? any UsagePolicy })
    }

    /// Every verdict on `actions` asked for by `caller`, in action then rule order. When no rule refuses or
    /// holds the call, its actions are charged in order to the limits over time; the first one over a limit
    /// takes back the call's charges and is its only verdict (a refusal, or a hold of a limit that holds).
    public func verdicts(_ actions: [WalletRpcAction], caller: String? = nil) async -> [PolicyVerdict] {
        let (verdicts, requests) = ruleVerdicts(actions, caller: caller)
        guard verdicts.isEmpty else { return verdicts }
        var charged: [UsageAdmissions.Admitted] = []
        for request in requests {
            do { charged += try await usage.admit(request) } catch {
                await usage.refund(charged)
                return [Self.verdict(of: error)]
            }
        }
        return []
    }

    /// The verdict of an action a limit over time stopped.
    private static func verdict(of failure: ActionFailure) -> PolicyVerdict {
        switch failure.kind {
        case .policyViolation(let policy, let reason):
            PolicyVerdict(action: failure.index, rule: policy, outcome: .refuse(reason))
        case .approvalRequired(let requirements) where !requirements.isEmpty:
            PolicyVerdict(
                action: failure.index, rule: requirements[0].rule, outcome: .hold(group: requirements[0].group))
        case .usageStoreFailure(let reason):
            PolicyVerdict(action: failure.index, rule: "usage store", outcome: .invalid(reason))
        default:
            PolicyVerdict(action: failure.index, rule: "usage", outcome: .invalid("\(failure.kind)"))
        }
    }

    /// The verdicts of every rule but the limits' counts, and the actions that could be read.
    private func ruleVerdicts(_ actions: [WalletRpcAction], caller: String?) -> ([PolicyVerdict], [ResolvedRequest]) {
        var verdicts: [PolicyVerdict] = []
        var requests: [ResolvedRequest] = []
        for (index, action) in actions.enumerated() {
            var request: ResolvedRequest
            do { request = try RequestResolver.resolve(action, index: index, node: nil, previewer: previewer) } catch {
                verdicts.append(PolicyVerdict(action: index, rule: "resolution", outcome: .invalid("\(error.kind)")))
                continue
            }
            request.caller = caller
            requests.append(request)
            verdicts += refusals(of: request, index: index, call: "")
            for case let policy as any ApprovalPolicy in policies {
                if let requirement = policy.requirement(for: request) {
                    verdicts.append(
                        PolicyVerdict(action: index, rule: requirement.rule, outcome: .hold(group: requirement.group)))
                }
            }
        }
        let previews = requests.flatMap { RpcDispatcher.judgedPreviews(of: $0) }
        for case let policy as any BatchPolicy in policies {
            if case .fail(let index, let reason) = policy.evaluate(batch: previews) {
                verdicts.append(PolicyVerdict(action: index, rule: policy.name, outcome: .refuse(reason)))
            }
        }
        return (verdicts, requests)
    }

    /// The refusals of `request` and of each call of its batch.
    private func refusals(of request: ResolvedRequest, index: Int, call: String) -> [PolicyVerdict] {
        var verdicts: [PolicyVerdict] = []
        for policy in policies {
            if case .fail(let reason) = policy.evaluate(request) {
                verdicts.append(PolicyVerdict(action: index, rule: policy.name, outcome: .refuse(call + reason)))
            }
        }
        for (position, inner) in request.calls.enumerated() {
            verdicts += refusals(of: inner, index: index, call: "\(call)call[\(position)]: ")
        }
        return verdicts
    }
}
