import EthereumPrimitives

/// The ``UsagePolicy`` charges of one action: taken in the policies' order just before its backend is asked
/// (one store transaction each), and taken back when the action fails.
struct UsageAdmissions: Sendable {
    /// One admitted charge and the store that holds it.
    struct Admitted: Sendable {
        let store: any UsageCounterStore
        let charge: UsageCharge
    }

    let policies: [any UsagePolicy]
    /// The rules whose approvals cleared the batch: the policies that hold for them count without the limit.
    var approvedRules: Set<String> = []

    /// Charges `request` to every policy that counts it; the first refusal (or store failure) takes back the
    /// charges already taken and fails the action.
    func admit(_ request: ResolvedRequest) async throws(ActionFailure) -> [Admitted] {
        var admitted: [Admitted] = []
        for policy in policies {
            let hold = policy.holdWhenExceeded
            let approved = hold.map { approvedRules.contains($0.rule) } ?? false
            for (charge, limits) in policy.usages(of: request) {
                let outcome: UsageAdmission
                let within = approved ? UsageLimits(maximumCount: nil, maximumAmount: nil) : limits
                do { outcome = try await policy.store.admit(charge, within: within) } catch {
                    await refund(admitted)
                    throw ActionFailure(index: request.index, kind: .usageStoreFailure("\(policy.name): \(error)"))
                }
                switch outcome {
                case .admitted: admitted.append(Admitted(store: policy.store, charge: charge))
                case .exceeded(let totals):
                    await refund(admitted)
                    if let hold { throw ActionFailure(index: request.index, kind: .approvalRequired([hold])) }
                    throw ActionFailure(
                        index: request.index,
                        kind: .policyViolation(
                            policy: policy.name, reason: policy.refusal(of: charge, totals: totals, limits: limits)))
                }
            }
        }
        return admitted
    }

    /// Takes `admitted` back (best effort: a store that fails keeps the charge, erring on the limit's side).
    func refund(_ admitted: [Admitted]) async {
        for entry in admitted.reversed() { try? await entry.store.refund(entry.charge) }
    }
}
