import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import Testing

/// The ERC-6492 wrapper parser and SignerKit's own validator bytecode.
@Suite("ERC-6492 wrapper and validator")
struct ERC6492Tests {
    static let factory = StandardPayloads.address("0x00000000000000000000000000000000fac70129")

    @Test("the committed validator hex is what assemble.py makes of validator.asm")
    func validatorMatchesItsSource() async throws {
        let script = """
            import importlib.util, json, sys
            paths = json.load(sys.stdin)
            spec = importlib.util.spec_from_file_location("assemble", paths["assembler"])
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            print(json.dumps("0x" + module.assemble(open(paths["source"]).read()).hex()))
            """
        let folder = LocalEVM.repoRoot.appendingPathComponent("scripts/erc6492-validator")
        let input = JSONValue.object(
            JSONObject([
                "assembler": .string(folder.appendingPathComponent("assemble.py").path),
                "source": .string(folder.appendingPathComponent("validator.asm").path),
            ]))
        let assembled = try await PythonOracle.run(script, input: input)
        #expect(assembled.stringValue == ERC6492Validator.codeHex)
    }

    @Test("a wrapper round-trips through its encoding, for empty and unaligned parts")
    func roundTrip() throws {
        for (calldata, signature) in [
            ([], []), ([1, 2, 3], Array(repeating: 7, count: 65)), (Array(repeating: 9, count: 64), [0xff]),
        ] as [([UInt8], [UInt8])] {
            let wrapper = ERC6492Wrapper(factory: Self.factory, factoryCalldata: calldata, signature: signature)
            let encoded = wrapper.encoded
            #expect(ERC6492Wrapper.isWrapped(encoded))
            #expect(try ERC6492Wrapper(parsing: encoded) == wrapper)
        }
    }

    @Test("hostile wrappers are refused with the field and position named")
    func hostileWrappers() throws {
        let good = ERC6492Wrapper(factory: Self.factory, factoryCalldata: [1, 2, 3], signature: [4, 5]).encoded
        let magic = ERC6492Wrapper.magicSuffix
        #expect(throws: ERC6492WrapperError.missingMagicSuffix) { try ERC6492Wrapper(parsing: [1, 2, 3]) }
        #expect(throws: ERC6492WrapperError.truncated(field: "head", needed: 96, available: 0)) {
            try ERC6492Wrapper(parsing: magic)
        }
        var dirty = good
        dirty[0] = 1
        #expect(throws: ERC6492WrapperError.addressNotPadded(position: 0)) { try ERC6492Wrapper(parsing: dirty) }
        var farOffset = good
        farOffset[63] = 0xf0  // factoryCalldata's offset → 0x…f0, past the body
        #expect {
            try ERC6492Wrapper(parsing: farOffset)
        } throws: { error in
            guard case .outOfBounds(let field, let position, _, _)? = error as? ERC6492WrapperError else {
                return false
            }
            return field == "factoryCalldata offset" && position == 32
        }
        var hugeLength = good
        hugeLength[96] = 0x01  // factoryCalldata's length word (at 0x60) gets a high byte
        #expect(throws: ERC6492WrapperError.tooLarge(field: "factoryCalldata length", position: 96)) {
            try ERC6492Wrapper(parsing: hugeLength)
        }
        var longSignature = good
        longSignature[longSignature.count - 32 - 32 - 1] = 0x40  // signature's length: 2 → 0x40, past the end
        #expect {
            try ERC6492Wrapper(parsing: longSignature)
        } throws: { error in
            guard case .outOfBounds(let field, _, _, _)? = error as? ERC6492WrapperError else { return false }
            return field == "signature length"
        }
    }

    @Test("random and mutated bytes never trap the parser")
    func neverTraps() {
        var random = SplitMix64(seed: 6492)
        let good = ERC6492Wrapper(factory: Self.factory, factoryCalldata: [1, 2, 3], signature: [4, 5, 6]).encoded
        var parsed = 0
        for round in 0..<4000 {
            var bytes = good
            if round % 2 == 0 {
                for _ in 0..<(1 + Int(random.next() % 4)) {
                    bytes[Int(random.next() % UInt64(bytes.count - 32))] = UInt8(truncatingIfNeeded: random.next())
                }
            } else {
                bytes = (0..<Int(random.next() % 300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                bytes += ERC6492Wrapper.magicSuffix
            }
            if (try? ERC6492Wrapper(parsing: bytes)) != nil { parsed += 1 }
        }
        // Some mutations only touch padding or data bytes and still parse; most break the structure.
        #expect(parsed > 0 && parsed < 4000)
    }

    @Test("a malformed wrapper is invalid without any node call")
    func malformedWrapperIsAVerdict() async throws {
        let claim = AccountSignatureClaim(
            account: Self.factory, digest: Keccak256.hash(utf8: "x"), signature: [0] + ERC6492Wrapper.magicSuffix)
        let node = CountingNode(UnreachableNode())
        let verdicts = try await AccountSignatureVerifier.verify([claim], node: node)
        #expect(verdicts.count == 1 && !verdicts[0].isValid)
        #expect(node.roundTrips == 0)
    }
}

/// A node that is never reachable (no socket at all): any call is a transport error.
struct UnreachableNode: EthereumNode {
    func call(method: String, params: [JSONValue]) async throws(NodeError) -> JSONValue {
        throw .transport("\(method): unreachable by construction")
    }
}
