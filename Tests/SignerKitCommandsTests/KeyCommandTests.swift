import Foundation
import Testing

@testable import SignerKitCommands

@Suite("key generate / address")
struct KeyCommandTests {
    @Test("generate writes a 0600 0x-hex key file and prints its address; the key signs and recovers")
    func generate() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.key")
        let generated = await signerkit(["key", "generate", "--out", path])
        #expect(generated.status == 0, "\(generated)")
        #expect(generated.stderr.isEmpty)
        let address = try #require(generated.stdoutLines.first)
        #expect(generated.stdoutLines.count == 1)
        #expect(address.hasPrefix("0x") && address.count == 42)

        let contents = try String(contentsOfFile: path, encoding: .utf8)
        #expect(contents.count == 67 && contents.hasPrefix("0x") && contents.hasSuffix("\n"))
        let allHex = contents.dropFirst(2).dropLast().allSatisfy { $0.isHexDigit }
        #expect(allHex)
        #expect(!generated.stdout.contains(String(contents.dropFirst(2).dropLast())))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        expectSuccess(await signerkit(["key", "address", "--key-file", path]), [address])
        let signature = await signerkit(["message", "sign", "--text", "hi", "--key-file", path])
        #expect(signature.status == 0)
        expectNoKeyMaterial(signature, key: contents.trimmingCharacters(in: .whitespacesAndNewlines))
        let recovered = await signerkit([
            "recover", "message", "--text", "hi", "--signature", signature.stdoutLines.first ?? "",
        ])
        expectSuccess(recovered, [address])
    }

    @Test("generate never overwrites, never writes to stdout, needs --out")
    func generateRefusals() async throws {
        let directory = try TemporaryDirectory()
        let existing = try directory.write("existing", "keep me")
        expectInvalid(await signerkit(["key", "generate", "--out", existing]), "\(existing): already exists")
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")
        expectInvalid(await signerkit(["key", "generate", "--out", "-"]), "--out: must be a file path")
        expectInvalid(await signerkit(["key", "generate"]), "missing --out")
        expectInvalid(await signerkit(["key", "generate", "--out", directory.path("no/such/dir/k")]), "no such file")
    }

    @Test("two generated keys differ")
    func distinct() async throws {
        let directory = try TemporaryDirectory()
        let a = await signerkit(["key", "generate", "--out", directory.path("a")])
        let b = await signerkit(["key", "generate", "--out", directory.path("b")])
        #expect(a.status == 0 && b.status == 0)
        #expect(a.stdout != b.stdout)
    }

    @Test("address of a known key file")
    func knownAddress() async throws {
        let vector = try Fixtures.personalVectors[2]
        let directory = try TemporaryDirectory()
        let key = try directory.write(
            "key", "  \(vector.privateKey.uppercased().replacingOccurrences(of: "0X", with: "0x"))\r\n\n")
        let result = await signerkit(["key", "address", "--key-file", key])
        expectSuccess(result, [vector.address])
        expectNoKeyMaterial(result, key: vector.privateKey)
    }
}
