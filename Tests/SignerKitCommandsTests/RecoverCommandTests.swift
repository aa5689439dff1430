import Foundation
import Testing

@testable import SignerKitCommands

@Suite("recover typed-data / message")
struct RecoverCommandTests {
    @Test("recover typed-data prints the EIP-55 signer", arguments: try Fixtures.typedDataVectors)
    func typedData(vector: TypedDataVector) async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("typed.json", vector.typedDataJSON)
        expectSuccess(
            await signerkit(["recover", "typed-data", file, "--signature", vector.signature]), [vector.address])
        expectSuccess(
            await signerkit(
                ["recover", "typed-data", "--signature", vector.signature, "-"], stdin: vector.typedDataJSON),
            [vector.address])
        expectSuccess(
            await signerkit(["recover", "typed-data", "--signature", vector.signature], stdin: vector.typedDataJSON),
            [vector.address])
    }

    @Test("recover message prints the EIP-55 signer", arguments: try Fixtures.personalVectors)
    func message(vector: PersonalVector) async throws {
        expectSuccess(
            await signerkit(["recover", "message"] + vector.messageArguments + ["--signature", vector.signature]),
            [vector.address])
    }

    @Test("v = 0/1 is accepted like 27/28")
    func zeroOneV() async throws {
        let vector = try Fixtures.personalVectors[1]
        let v = vector.signature.suffix(2) == "1b" ? "00" : "01"
        let signature = String(vector.signature.dropLast(2)) + v
        expectSuccess(
            await signerkit(["recover", "message"] + vector.messageArguments + ["--signature", signature]),
            [vector.address])
    }

    @Test("bad signatures are invalid input naming --signature")
    func badSignatures() async throws {
        let vector = try Fixtures.personalVectors[1]
        let message = vector.messageArguments
        let cases: [(String, String)] = [
            (String(vector.signature.dropLast(2)), "--signature: signature must be 65 bytes, got 64"),
            (String(vector.signature.dropFirst(2)), "--signature: invalid hex: missing 0x prefix"),
            (vector.signature + "0", "--signature: invalid hex: odd number of hex digits"),
            (String(vector.signature.dropLast(2)) + "1d", "--signature: invalid signature v 29"),
            (
                "0x" + String(repeating: "00", count: 64) + "1b",
                "--signature: invalid signature: r and s must be between 1 and n-1"
            ),
        ]
        for (signature, message2) in cases {
            expectInvalid(await signerkit(["recover", "message"] + message + ["--signature", signature]), message2)
        }
        expectInvalid(await signerkit(["recover", "message"] + message), "missing --signature")
        expectInvalid(
            await signerkit(["recover", "typed-data", Fixtures.path("ronin_order.json")]), "missing --signature")
        expectInvalid(
            await signerkit(["recover", "typed-data", Fixtures.path("ronin_order.json"), "--signature", "0x1234"]),
            "--signature: signature must be 65 bytes, got 2")
    }

    @Test("a signature over other data recovers a different address (not an error)")
    func otherData() async throws {
        let vector = try Fixtures.personalVectors[1]
        let result = await signerkit([
            "recover", "message", "--text", "something else", "--signature", vector.signature,
        ])
        #expect(result.status == 0)
        #expect(result.stdoutLines.count == 1)
        #expect(result.stdoutLines.first != vector.address)
    }
}
