import Foundation
import Testing

/// `signerkit pkcs11` from many processes at once against one SoftHSM2 token store (real SoftHSM2,
/// real `signerkit` processes): SoftHSM2 keeps the token in files every process re-reads, so
/// processes see each other's half-written state and create objects without a common lock.
@Suite(
    "pkcs11 in parallel processes: duplicate labels refused atomically, transient errors retried",
    .enabled(if: CLIHSM.available, "SoftHSM2 is not installed (apt-get install softhsm2 opensc)"),
    .enabled(if: Binary.url != nil, "the signerkit executable is not next to the test bundle"))
struct PKCS11ParallelTests {
    /// One `label<TAB>id<TAB>address` line of `pkcs11 list`.
    struct Listed: Equatable {
        let label: String
        let id: String
        let address: String
    }

    static func parse(_ output: String) -> [Listed] {
        CommandResult.lines(output).compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return fields.count == 3 ? Listed(label: fields[0], id: fields[1], address: fields[2]) : nil
        }
    }

    @Test("keygen and import of one label from many processes leave at most one key; the others all succeed")
    func parallelKeygenImportAndList() async throws {
        let store = try await CLIHSM.makeStore()
        let directory = try TemporaryDirectory()
        let keyFile = try directory.write("key", Actions.keyHex + "\n")
        let token = store.tokenArguments()
        var commands: [[String]] = []
        for _ in 0..<5 { commands.append(["pkcs11", "keygen", "--key-label", "same"] + token) }
        for _ in 0..<3 {
            commands.append(["pkcs11", "import", "--key-label", "imported", "--key-file", keyFile] + token)
        }
        for index in 0..<6 { commands.append(["pkcs11", "keygen", "--key-label", "own-\(index)"] + token) }
        for _ in 0..<6 { commands.append(["pkcs11", "list"] + token) }
        let results = try await withThrowingTaskGroup(of: (Int, CommandResult).self) { group in
            for (index, arguments) in commands.enumerated() {
                group.addTask { (index, try await Binary.run(arguments, environment: store.environment)) }
            }
            var results = [CommandResult?](repeating: nil, count: commands.count)
            for try await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
        try #require(results.count == commands.count)
        for (arguments, result) in zip(commands, results) {
            // Whatever happened, no process was told the token does not exist.
            #expect(!result.stderr.contains("no initialised"), "\(arguments): \(result)")
        }
        let same = results[0..<5]
        let imported = results[5..<8]
        let own = results[8..<14]
        let lists = results[14..<20]
        #expect(same.filter { $0.status == 0 }.count <= 1, "\(same.map(\.description))")
        #expect(imported.filter { $0.status == 0 }.count <= 1, "\(imported.map(\.description))")
        for refused in (same + imported) where refused.status != 0 {
            expectInvalid(refused, "already exists on the token")
        }
        // The other keygens and every list succeed despite the concurrent writes.
        for result in own { #expect(result.status == 0 && result.stdoutLines.count == 1, "\(result)") }
        for result in lists { #expect(result.status == 0, "\(result)") }

        // Afterwards: as many keys per contested label as processes reported success, each key
        // with its own address, and every keygen's address is the one listed for its label.
        let final = try await Binary.run(["pkcs11", "list"] + token, environment: store.environment)
        #expect(final.status == 0, "\(final)")
        let listed = Self.parse(final.stdout)
        #expect(listed.filter { $0.label == "same" }.count == same.filter { $0.status == 0 }.count, "\(listed)")
        #expect(listed.filter { $0.label == "imported" }.count == imported.filter { $0.status == 0 }.count)
        if let success = imported.first(where: { $0.status == 0 }) {
            #expect(success.stdoutLines == [Actions.address])
            #expect(listed.first { $0.label == "imported" }?.address == Actions.address)
        }
        for (index, result) in own.enumerated() where result.status == 0 {
            let entries = listed.filter { $0.label == "own-\(index)" }
            #expect(entries.count == 1)
            #expect(entries.first?.address == result.stdoutLines.first, "\(listed)")
        }
        let addresses = listed.map(\.address).filter { $0 != "-" }
        #expect(Set(addresses).count == addresses.count, "two keys listed with one address: \(listed)")
    }

    @Test(
        "keys sharing label and id (made by another tool) are each listed with their own address",
        .enabled(if: CLIHSM.executable("pkcs11-tool") != nil, "needs OpenSC's pkcs11-tool"))
    func twinsListTheirOwnAddresses() async throws {
        let store = try await CLIHSM.makeStore()
        let tool = try #require(CLIHSM.executable("pkcs11-tool"))
        for _ in 0..<2 {
            try await CLIHSM.run(
                tool,
                [
                    "--module", CLIHSM.modulePath, "--token-label", CLIHSM.Label.main, "--login", "--pin", CLIHSM.pin,
                    "--keypairgen", "--key-type", "EC:secp256k1", "--label", "twin", "--id", "0a0b",
                ],
                environment: ["SOFTHSM2_CONF": store.configuration])
        }
        let result = try await Binary.run(["pkcs11", "list"] + store.tokenArguments(), environment: store.environment)
        #expect(result.status == 0, "\(result)")
        let twins = Self.parse(result.stdout).filter { $0.label == "twin" }
        #expect(twins.count == 2)
        #expect(twins.allSatisfy { $0.id == "0x0a0b" && $0.address.hasPrefix("0x") }, "\(twins)")
        #expect(Set(twins.map(\.address)).count == 2, "both twins listed with one address: \(twins)")
    }
}
