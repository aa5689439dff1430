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

    /// Charges `request` to every policy that counts it; the first refusal (or store failure) takes back the
    /// charges already taken and fails the action.
    func admit(_ request: ResolvedRequest) async throws(ActionFailure) -> [Admitted] {
        var admitted: [Admitted] = []
        for policy in policies {
            for (charge, limits) in policy.usages(of: request) {
                let outcome: UsageAdmission
                do { outcome = try await policy.store.admit(charge, within: limits) } catch {
                    await refund(admitted)
                    throw ActionFailure(index: request.index, kind: .usageStoreFailure("\(policy.name): \(error)"))
                }
                switch outcome {
                case .admitted: admitted.append(Admitted(store: policy.store, charge: charge))
                case .exceeded(let totals):
                    await refund(admitted)
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
