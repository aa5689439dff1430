import EthereumPrimitives
import Foundation
import Testing

@testable import SignerKitCommands

@Suite("keystore new / address / decrypt")
struct KeystoreCommandTests {
    static let kdfs: [[String]] = [
        ["--kdf-light"], ["--kdf", "pbkdf2", "--kdf-light"], ["--kdf", "scrypt", "--kdf-light"],
    ]

    @Test(
        "round trip: new from a key file, address, decrypt to a new 0600 key file; wrong password exits 65",
        arguments: kdfs)
    func roundTrip(kdf: [String]) async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex + "\n")
        let password = try directory.write("password", "pässwörd with spaces \r\nand a second line\n")
        let keystore = directory.path("keystore.json")
        let created = await signerkit(
            ["keystore", "new", "--out", keystore, "--password-file", password, "--key-file", key] + kdf)
        expectSuccess(created, [Actions.address])
        expectNoKeyMaterial(created, key: Actions.keyHex)

        let attributes = try FileManager.default.attributesOfItem(atPath: keystore)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let document = try JSONValue(parsing: String(contentsOfFile: keystore, encoding: .utf8))
        #expect(document["version"] == .number("3"))
        #expect(document["address"]?.stringValue == keyDigits(Actions.address))
        #expect(document["crypto"]?["kdf"]?.stringValue == (kdf.contains("pbkdf2") ? "pbkdf2" : "scrypt"))
        #expect(
            !(try String(contentsOfFile: keystore, encoding: .utf8)).lowercased().contains(keyDigits(Actions.keyHex)))

        expectSuccess(await signerkit(["keystore", "address", keystore]), [Actions.address])

        let out = directory.path("decrypted.key")
        let decrypted = await signerkit(["keystore", "decrypt", keystore, "--password-file", password, "--out", out])
        expectSuccess(decrypted, [Actions.address])
        expectNoKeyMaterial(decrypted, key: Actions.keyHex)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == Actions.keyHex + "\n")
        let keyAttributes = try FileManager.default.attributesOfItem(atPath: out)
        #expect((keyAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        // The password's trailing spaces matter, its CR does not: a trimmed password is wrong.
        let wrong = try directory.write("wrong", "pässwörd with spaces\n")
        let refused = await signerkit([
            "keystore", "decrypt", keystore, "--password-file", wrong, "--out", directory.path("never.key"),
        ])
        expectInvalid(refused, "\(keystore): wrong password")
        #expect(!FileManager.default.fileExists(atPath: directory.path("never.key")))
        expectInvalid(
            await signerkit(["message", "sign", "--text", "x", "--keystore", keystore, "--password-file", wrong]),
            "wrong password")

        // The keystore signs like the key file.
        let byKey = await signerkit(["message", "sign", "--text", "x", "--key-file", key])
        #expect(byKey.status == 0)
        expectSuccess(
            await signerkit(["message", "sign", "--text", "x", "--keystore", keystore, "--password-file", password]),
            byKey.stdoutLines)
    }

    @Test("new without --key-file makes a fresh key; the password may come from SIGNERKIT_PASSWORD")
    func freshKeyAndEnvironmentPassword() async throws {
        let directory = try TemporaryDirectory()
        let keystore = directory.path("fresh.json")
        let environment = ["SIGNERKIT_PASSWORD": "from the environment"]
        let created = await signerkit(["keystore", "new", "--out", keystore, "--kdf-light"], environment: environment)
        #expect(created.status == 0, "\(created)")
        let address = try #require(created.stdoutLines.first)
        #expect(address.hasPrefix("0x") && address.count == 42)
        expectSuccess(await signerkit(["keystore", "address", keystore]), [address])
        expectSuccess(await signerkit(["key", "address", "--keystore", keystore], environment: environment), [address])
        let out = directory.path("fresh.key")
        expectSuccess(
            await signerkit(["keystore", "decrypt", keystore, "--out", out], environment: environment), [address])
        expectSuccess(await signerkit(["key", "address", "--key-file", out]), [address])
        expectInvalid(
            await signerkit(
                ["keystore", "decrypt", keystore, "--out", directory.path("x")],
                environment: ["SIGNERKIT_PASSWORD": "nope"]),
            "wrong password")
        expectInvalid(
            await signerkit(["keystore", "decrypt", keystore, "--out", directory.path("y")]), "missing --password-file")
    }

    @Test("address of a keystore without an address field needs the password")
    func addresslessKeystore() async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        let password = try directory.write("password", "pw")
        let keystore = directory.path("keystore.json")
        expectSuccess(
            await signerkit([
                "keystore", "new", "--out", keystore, "--password-file", password, "--key-file", key, "--kdf-light",
            ]),
            [Actions.address])
        guard case .object(var root) = try JSONValue(parsing: String(contentsOfFile: keystore, encoding: .utf8)) else {
            Issue.record("keystore is not an object")
            return
        }
        root.members.removeAll { $0.key == "address" }
        let bare = try directory.write("bare.json", JSONValue.object(root).serialized)
        expectInvalid(await signerkit(["keystore", "address", bare]), "has no address field", "--password-file")
        expectSuccess(await signerkit(["keystore", "address", bare, "--password-file", password]), [Actions.address])
        let wrong = try directory.write("wrong", "wrong")
        expectInvalid(await signerkit(["keystore", "address", bare, "--password-file", wrong]), "wrong password")
    }

    @Test(
        "refusals: existing --out, stdout, empty password, bad --kdf, bad keystore, password flags without --keystore")
    func refusals() async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", Actions.keyHex)
        let password = try directory.write("password", "pw\n")
        let existing = try directory.write("existing", "keep me")
        expectInvalid(
            await signerkit(["keystore", "new", "--out", existing, "--password-file", password, "--kdf-light"]),
            "\(existing): already exists")
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")
        expectInvalid(
            await signerkit(["keystore", "new", "--out", "-", "--password-file", password]),
            "--out: must be a file path")
        expectInvalid(await signerkit(["keystore", "new", "--password-file", password]), "missing --out")
        expectInvalid(await signerkit(["keystore", "new", "--out", directory.path("a")]), "missing --password-file")
        let empty = try directory.write("empty", "\r\n")
        expectInvalid(
            await signerkit(["keystore", "new", "--out", directory.path("b"), "--password-file", empty]),
            "\(empty): the password is empty")
        expectInvalid(
            await signerkit([
                "keystore", "new", "--out", directory.path("c"), "--password-file", password, "--kdf", "argon2",
            ]),
            "--kdf: expected scrypt or pbkdf2")
        expectInvalid(
            await signerkit([
                "keystore", "new", "--out", directory.path("d"), "--password-file", directory.path("none"),
            ]), "none: no such file")
        let notKeystore = try directory.write("not.json", "{\"version\":3}")
        expectInvalid(await signerkit(["keystore", "address", notKeystore]), "\(notKeystore): crypto: is missing")
        expectInvalid(
            await signerkit(["keystore", "address", directory.path("missing.json")]), "missing.json: no such file")
        expectInvalid(await signerkit(["keystore", "address"]), "missing FILE")

        let keystore = directory.path("keystore.json")
        expectSuccess(
            await signerkit([
                "keystore", "new", "--out", keystore, "--password-file", password, "--key-file", key, "--kdf-light",
            ]),
            [Actions.address])
        expectInvalid(
            await signerkit(["keystore", "decrypt", keystore, "--password-file", password, "--out", existing]),
            "\(existing): already exists")
        expectInvalid(
            await signerkit(["keystore", "decrypt", keystore, "--password-file", password, "--out", "-"]),
            "--out: must be a file path")
        expectInvalid(
            await signerkit(["message", "sign", "--text", "x", "--key-file", key, "--password-file", password]),
            "--password-file needs --keystore")
        expectInvalid(
            await signerkit(["message", "sign", "--text", "x", "--key-file", key, "--keystore", keystore]),
            "--key-file and --keystore cannot be used together")
        expectInvalid(
            await signerkit(["message", "sign", "--text", "x", "--keystore", keystore]), "missing --password-file")
        // No flag takes a password on the command line.
        expectInvalid(
            await signerkit(["keystore", "new", "--out", directory.path("e"), "--password", "pw"]),
            "unknown option --password")
    }
}
