import EthereumPrimitives
import Foundation
import SignerKitTestSupport
import Testing

@testable import CloudKMSSigner

/// libgcrypt's RS256 signatures (the JWT of the service-account token) checked by an independent
/// implementation (pycryptodome), for keys whose primes come in either order in PKCS#1 (OpenSSL's and
/// Google's have p > q; pycryptodome's p < q).
@Suite("RS256 by libgcrypt from a PKCS#8 key")
struct RS256Tests {
    static let oracle = """
        import base64, json, sys
        from Crypto.Hash import SHA256
        from Crypto.PublicKey import RSA
        from Crypto.Signature import pkcs1_15
        request = json.load(sys.stdin)
        if request["op"] == "keys":
            key = RSA.generate(2048)
            swapped = RSA.construct((key.n, key.e, key.d, key.q, key.p), consistency_check=True)
            print(json.dumps([k.export_key(pkcs=8).decode() for k in (key, swapped)]))
        else:
            results = []
            for case in request["cases"]:
                key = RSA.import_key(case["key"]).public_key()
                try:
                    pkcs1_15.new(key).verify(SHA256.new(case["message"].encode()), base64.b64decode(case["signature"]))
                    results.append(True)
                except ValueError:
                    results.append(False)
            print(json.dumps(results))
        """

    @Test("signatures verify with the public key, for p > q and p < q; a wrong message does not")
    func verifiedByPycryptodome() async throws {
        let keys = try #require(try await PythonOracle.run(Self.oracle, input: ["op": "keys"]).arrayValue)
        #expect(keys.count == 2)
        var cases: [JSONValue] = []
        for key in keys {
            let pem = try #require(key.stringValue)
            let signer = try RSASigningKey(pkcs8PEM: pem)
            #expect(signer.modulusLength == 256)
            let signature = try signer.signRS256(Array("header.claims".utf8))
            #expect(signature.count == 256)
            let encoded = JSONValue.string(Data(signature).base64EncodedString())
            cases.append(["key": key, "message": "header.claims", "signature": encoded])
            cases.append(["key": key, "message": "header.claimz", "signature": encoded])
        }
        let verified = try await PythonOracle.run(Self.oracle, input: ["op": "verify", "cases": .array(cases)])
        #expect(verified == [true, false, true, false])
    }

    @Test("what is not a PKCS#8 RSA key of 2048 bits or more is refused, naming no key material")
    func refused() async throws {
        let ecKey =
            "-----BEGIN PRIVATE KEY-----\nMIGEAgEAMBAGByqGSM49AgEGBSuBBAAKBG0wawIBAQQg\n-----END PRIVATE KEY-----"
        for (pem, reason) in [
            ("no PEM at all", "no -----BEGIN PRIVATE KEY-----"),
            ("-----BEGIN PRIVATE KEY-----\n@@@\n-----END PRIVATE KEY-----", "not base64"),
            (ecKey, "not a PKCS#8 RSA key"),
        ] {
            #expect(throws: RSASigningKey.Failure.self) { _ = try RSASigningKey(pkcs8PEM: pem) }
            do { _ = try RSASigningKey(pkcs8PEM: pem) } catch {
                #expect("\(error)".contains(reason), "\(error)")
                #expect(!"\(error)".contains("MIG"))
            }
        }
    }
}
