import CSecp256k1
import EIP712
import EthereumPrimitives
import Foundation
import Secp256k1

/// Names of the EIP-712 / signing cases other files refer to.
enum EIP712Case {
    static let fromJSON = "eip712 digest, Ronin Order from JSON text"
    static let fromBytesRepeated = "eip712 digest, Ronin Order from JSON bytes, schema seen before"
    static let fromParsed = "eip712 digest, Ronin Order from parsed typed data"
    static let fromCompiled = "eip712 digest, Ronin Order from a compiled schema"
    static let fromGenerated = "eip712 digest, Ronin Order from a generated struct"
    static let fromEncodable = "eip712 digest, Ronin Order from an Encodable struct"
    static let fromEncodableTree = "eip712 digest, Ronin Order from an Encodable struct via JSONValue"
    static let rawSignPlusDigest = "baseline: raw libsecp256k1 sign + digest from JSON"
    static let signFromJSON = "eip712 sign, Ronin Order from JSON text"
    static let rawPersonalSign = "baseline: raw libsecp256k1 sign + EIP-191 digest"
    static let personalSign = "personal_sign (32-byte message)"
}

/// Permutations in the Ronin Order digest as the issue counts them (17 from text, 11 from a compiled schema).
/// SignerKit's own count is lower where it caches more (e.g. 8 from a compiled schema); the perm-eq column
/// shows the absolute cost either way.
private let orderPermutationsFromText = 17.0
private let orderPermutationsCompiled = 11.0

func eip712Benchmarks() -> [Benchmark] {
    guard let text = BenchmarkFixtures.roninOrderText,
        let parsed = try? TypedData(jsonText: text),
        let compiled = try? parsed.compile(),
        let key = try? PrivateKey(hex: BenchmarkFixtures.keyHex),
        let structs = RoninOrderStructs(message: parsed.message)
    else {
        print("eip712 benchmarks: fixture or key missing; skipped")
        return []
    }
    let reference = KeccakCase.referencePermutation
    let context = RawSecp256k1Context()
    let keyBytes = (try? Hex.decode(BenchmarkFixtures.keyHex)) ?? []
    let message = [UInt8](repeating: 0x5A, count: 32)
    let bytes = Array(text.utf8)
    return [
        Benchmark(
            name: EIP712Case.fromJSON, group: "eip712", baseline: reference,
            unitsPerIteration: orderPermutationsFromText
        ) {
            iterations in
            var accumulator: UInt8 = 0
            for _ in 0..<iterations { accumulator ^= ((try? TypedData(jsonText: text).digest()) ?? .zero)[0] }
            blackHole(accumulator)
        },
        // TypedData.hashes(jsonUTF8:) with the schema cached: only the message is parsed (goal: ≤ 1.2× of the
        // 11 permutations of a compiled schema).
        Benchmark(
            name: EIP712Case.fromBytesRepeated, group: "eip712", baseline: reference,
            unitsPerIteration: orderPermutationsCompiled
        ) { iterations in
            var accumulator: UInt8 = 0
            for _ in 0..<iterations { accumulator ^= ((try? TypedData.hashes(jsonUTF8: bytes))?.digest ?? .zero)[0] }
            blackHole(accumulator)
        },
        Benchmark(
            name: EIP712Case.fromParsed, group: "eip712", baseline: reference,
            unitsPerIteration: orderPermutationsFromText
        ) {
            iterations in
            var accumulator: UInt8 = 0
            for _ in 0..<iterations { accumulator ^= ((try? parsed.digest()) ?? .zero)[0] }
            blackHole(accumulator)
        },
        Benchmark(
            name: EIP712Case.fromCompiled, group: "eip712", baseline: reference,
            unitsPerIteration: orderPermutationsCompiled
        ) { iterations in
            var accumulator: UInt8 = 0
            for _ in 0..<iterations { accumulator ^= ((try? compiled.digest(message: parsed.message)) ?? .zero)[0] }
            blackHole(accumulator)
        },
        // The struct generated from RoninOrder.eip712.json, under the domain separator computed once (as the
        // compiled schema holds it): goal ≤ 1.1× the compiled schema.
        Benchmark(name: EIP712Case.fromGenerated, group: "eip712", baseline: EIP712Case.fromCompiled) { iterations in
            let order = structs.generated
            let domainSeparator = compiled.domainSeparator
            var accumulator: UInt8 = 0
            for _ in 0..<iterations { accumulator ^= (try? order.digest(domainSeparator: domainSeparator))?[0] ?? 0 }
            blackHole(accumulator)
        },
        // A hand-written Encodable struct encoded straight into a document and hashed by the compiled schema
        // (compiled.digest(encoding:)): goal ≤ 1.5× the compiled schema.
        Benchmark(name: EIP712Case.fromEncodable, group: "eip712", baseline: EIP712Case.fromCompiled) { iterations in
            let order = structs.encodable
            var accumulator: UInt8 = 0
            for _ in 0..<iterations { accumulator ^= ((try? compiled.digest(encoding: order)) ?? .zero)[0] }
            blackHole(accumulator)
        },
        // The same struct through a JSONValue tree (JSONValueEncoder().encode, then digest(message:)).
        Benchmark(name: EIP712Case.fromEncodableTree, group: "eip712", baseline: EIP712Case.fromCompiled) {
            iterations in
            let order = structs.encodable
            let encoder = JSONValueEncoder()
            var accumulator: UInt8 = 0
            for _ in 0..<iterations {
                let digest = (try? encoder.encode(order)).flatMap { try? compiled.digest(message: $0) } ?? .zero
                accumulator ^= digest[0]
            }
            blackHole(accumulator)
        },
        Benchmark(name: EIP712Case.rawSignPlusDigest, group: "eip712") { iterations in
            var accumulator: UInt8 = 0
            for _ in 0..<iterations {
                let digest = (try? TypedData(jsonText: text).digest()) ?? .zero
                accumulator ^= context.sign(digest: digest, key: keyBytes)
            }
            blackHole(accumulator)
        },
        Benchmark(name: EIP712Case.signFromJSON, group: "eip712", baseline: EIP712Case.rawSignPlusDigest) {
            iterations in
            var accumulator: UInt8 = 0
            for _ in 0..<iterations {
                let digest = (try? TypedData(jsonText: text).digest()) ?? .zero
                accumulator ^= key.sign(prehash: digest).r[0]
            }
            blackHole(accumulator)
        },
        Benchmark(name: EIP712Case.rawPersonalSign, group: "personal_sign") { iterations in
            var accumulator: UInt8 = 0
            for _ in 0..<iterations {
                accumulator ^= context.sign(digest: PersonalMessage.digest(message), key: keyBytes)
            }
            blackHole(accumulator)
        },
        Benchmark(name: EIP712Case.personalSign, group: "personal_sign", baseline: EIP712Case.rawPersonalSign) {
            iterations in
            var accumulator: UInt8 = 0
            for _ in 0..<iterations { accumulator ^= key.sign(prehash: PersonalMessage.digest(message)).r[0] }
            blackHole(accumulator)
        },
    ]
}

/// The Ronin Order digest must be the published one before anything is timed.
let eip712SelfCheck = SelfCheck(name: "Ronin Order digest == 0x38859f04…320d") {
    guard let text = BenchmarkFixtures.roninOrderText else { return "ronin_order.json fixture missing" }
    let expected = "0x38859f04b0793cec13bb31f84aa8663a99b48ea14c690e24574fabdd5643320d"
    guard let typed = try? TypedData(jsonText: text), let digest = try? typed.digest(),
        let compiled = try? typed.compile(), let fromCompiled = try? compiled.digest(message: typed.message)
    else { return "Ronin Order does not hash" }
    guard digest.hex == expected, fromCompiled.hex == expected else {
        return "Ronin Order digest \(digest.hex) / \(fromCompiled.hex), expected \(expected)"
    }
    guard let structs = RoninOrderStructs(message: typed.message) else { return "Ronin Order structs do not read" }
    let fromGenerated = try? structs.generated.digest(domainSeparator: compiled.domainSeparator)
    let fromEncodable = try? compiled.digest(encoding: structs.encodable)
    let fromTree = try? compiled.digest(message: JSONValueEncoder().encode(structs.encodable))
    guard fromGenerated?.hex == expected, fromEncodable?.hex == expected, fromTree?.hex == expected else {
        return
            "Ronin Order from structs \(fromGenerated?.hex ?? "error") / \(fromEncodable?.hex ?? "error"), expected \(expected)"
    }
    return nil
}

/// Direct libsecp256k1 calls with a plain key buffer: the floor SignerKit's signing is compared with.
private final class RawSecp256k1Context {
    let context: OpaquePointer

    init() {
        // A process-lifetime context for the benchmark run.
        context = secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE))
    }

    /// Signs with RFC 6979 and serializes (r‖s, recid), returning one byte to feed the black hole.
    func sign(digest: Bytes32, key: [UInt8]) -> UInt8 {
        var signature = secp256k1_ecdsa_recoverable_signature()
        var output = [UInt8](repeating: 0, count: 64)
        var recid: Int32 = 0
        digest.withUnsafeBytes { digestBytes in
            // A 32-byte buffer: its base address is never nil.
            // swift-format-ignore: NeverForceUnwrap
            let bytes = digestBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            _ = secp256k1_ecdsa_sign_recoverable(context, &signature, bytes, key, nil, nil)
        }
        _ = secp256k1_ecdsa_recoverable_signature_serialize_compact(context, &output, &recid, &signature)
        return output[0] ^ UInt8(recid)
    }
}
