import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitService

/// `SIGHUP` for `signerkit serve`: the configuration file is read again and its clients and policies
/// replace the running ones; everything else (keys, listen address, nodes, limits, stores) needs a restart.
enum ServeReload {
    /// The policies of the configuration's `policyFile` (none without one; quotas count in `usage`) and the
    /// policy set they are: SHA-256 of the very bytes they were read from (what `sha256sum` prints for the file;
    /// `nil` without one), which every audit record carries.
    static func policies(_ configuration: ServiceConfiguration, usage: any UsageCounterStore) throws(CommandFailure)
        -> (policies: [any ActionPolicy], policySet: Bytes32?)
    {
        guard let policyFile = configuration.policyFile else { return ([], nil) }
        do {
            let bytes = try FileAccess.readAll(policyFile)
            let text = try InputSource.text(bytes, label: TextSafety.displayArgument(policyFile))
            return (try PolicyFile.policies(jsonText: text, usageStore: usage), MerkleHash.sha256(bytes))
        } catch {
            throw .invalidInput("policyFile: \(error)")
        }
    }

    /// The policies of the configuration's `shadowPolicyFile` (`nil` without one): decided, never enforced;
    /// their limits over time count in memory, never in the store the enforced policies charge.
    static func shadowPolicies(_ configuration: ServiceConfiguration) throws(CommandFailure) -> [any ActionPolicy]? {
        guard let shadowPolicyFile = configuration.shadowPolicyFile else { return nil }
        do {
            return try PolicyFile.policies(
                jsonText: try PreviewOptions.readFile(shadowPolicyFile), usageStore: MemoryUsageCounterStore())
        } catch {
            throw .invalidInput("shadowPolicyFile: \(error)")
        }
    }

    /// Reloads `service` from the file at `configurationPath`; returns the structured log line saying what
    /// happened. An invalid file changes nothing.
    static func reload(_ service: SignerService, configurationPath: String, usage: any UsageCounterStore) -> String {
        let configuration: ServiceConfiguration
        let policies: [any ActionPolicy]
        do throws(CommandFailure) {
            do { configuration = try ServiceConfiguration.load(path: configurationPath) } catch {
                throw .invalidInput("\(error)")
            }
            let policySet: Bytes32?
            (policies, policySet) = try Self.policies(configuration, usage: usage)
            let shadow = try Self.shadowPolicies(configuration)
            do {
                try service.reload(
                    clients: configuration.clients, policies: policies, policySet: policySet, shadow: shadow)
            } catch {
                throw .invalidInput("\(error)")
            }
        } catch {
            return logLine(
                level: "error",
                [
                    "msg": .string("reload refused, the running clients and policies stay"),
                    "problem": .string(error.message),
                ])
        }
        var fields: [String: JSONValue] = [
            "msg": .string("reloaded clients and policies"),
            "clients": .number(String(configuration.clients.count)), "policies": .number(String(policies.count)),
        ]
        let ignored = restartOnlyChanges(from: service.configuration, to: configuration)
        if !ignored.isEmpty { fields["needsRestart"] = .array(ignored.map(JSONValue.string)) }
        return logLine(level: ignored.isEmpty ? "info" : "warning", fields)
    }

    /// The members whose change a reload does not apply.
    static func restartOnlyChanges(from old: ServiceConfiguration, to new: ServiceConfiguration) -> [String] {
        var changed: [String] = []
        if old.host != new.host || old.port != new.port { changed.append("listen") }
        if old.keys != new.keys { changed.append("keys") }
        if old.upstream != new.upstream { changed.append("upstream") }
        if old.defaultChain != new.defaultChain { changed.append("chainId") }
        if old.enablesEthSign != new.enablesEthSign { changed.append("enableEthSign") }
        if old.limits != new.limits { changed.append("limits") }
        if old.auditLog != new.auditLog { changed.append("auditLog") }
        if old.store != new.store { changed.append("store") }
        if old.tls != new.tls { changed.append("tls") }
        if old.roninPayers != new.roninPayers { changed.append("roninPayers") }
        if old.ledger != new.ledger { changed.append("ledger") }
        return changed
    }

    private static func logLine(level: String, _ fields: [String: JSONValue]) -> String {
        var object = JSONObject(["time": .string(AuditLog.timestamp(Date())), "level": .string(level)])
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) { object[key] = value }
        return JSONValue.object(object).serialized
    }
}
