import EthereumPrimitives
import Foundation
import Testing

@testable import SignerKitCommands

@Suite("message hash / sign")
struct MessageCommandTests {
    @Test("hash gives the personal_sign digest", arguments: try Fixtures.personalVectors)
    func hash(vector: PersonalVector) async throws {
        expectSuccess(await signerkit(["message", "hash"] + vector.messageArguments), [vector.digest])
    }

    @Test("sign reproduces the vector signature; the key never appears", arguments: try Fixtures.personalVectors)
    func sign(vector: PersonalVector) async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("key", vector.privateKey)
        let result = await signerkit(["message", "sign"] + vector.messageArguments + ["--key-file", key])
        expectSuccess(result, [vector.signature])
        expectNoKeyMaterial(result, key: vector.privateKey)
        // Flags in any order, `--flag=value` form.
        let reordered = await signerkit([
            "message", "sign", "--key-file=\(key)", "\(vector.messageArguments[0])=\(vector.message)",
        ])
        expectSuccess(reordered, [vector.signature])
    }

    @Test("--text is signed as text even when it looks like hex; --hex as bytes")
    func textVersusHex() async throws {
        let asText = await signerkit(["message", "hash", "--text", "0xdeadbeef"])
        expectSuccess(asText, [PersonalMessage.digest(Array("0xdeadbeef".utf8)).hex])
        let asHex = await signerkit(["message", "hash", "--hex", "0xdeadbeef"])
        expectSuccess(asHex, [PersonalMessage.digest([0xDE, 0xAD, 0xBE, 0xEF]).hex])
        #expect(asText.stdout != asHex.stdout)
    }

    @Test("--text values that look like flags are text")
    func flagLikeText() async throws {
        expectSuccess(
            await signerkit(["message", "hash", "--text=--help"]), [PersonalMessage.digest(Array("--help".utf8)).hex])
        expectSuccess(
            await signerkit(["message", "hash", "--text=-h"]), [PersonalMessage.digest(Array("-h".utf8)).hex])
        expectSuccess(
            await signerkit(["message", "hash", "--text", "-"]), [PersonalMessage.digest(Array("-".utf8)).hex])
        expectSuccess(
            await signerkit(["message", "hash", "--text", "-x"]), [PersonalMessage.digest(Array("-x".utf8)).hex])
        // A declared flag is not taken as a value: `--text --help` asks for help.
        let help = await signerkit(["message", "hash", "--text", "--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("Usage: signerkit message hash"))
        expectSuccess(await signerkit(["message", "hash", "--text", ""]), [PersonalMessage.digest([]).hex])
    }
}
