import EthereumPrimitives
import SignerKit
import SignerKitTestSupport
import Testing

/// `ERC7821Batch`: the `execute(bytes32,bytes)` calldata of a single batch, checked against eth-abi, read back
/// strictly, and refused with the field and byte position when malformed.
@Suite("ERC-7821 batch calldata")
struct ERC7821BatchTests {
    static let token: Address = {
        do { return try Address("0x00000000000000000000000000000000000c0de0") } catch { fatalError("\(error)") }
    }()

    /// One call to ``token`` carrying the two bytes `0xabcd`: bytes 196–227 are its target word, 292–323 its
    /// data length, 324–355 its data and padding (the layout the error tests below rely on).
    static let oneCall = ERC7821Batch(calls: [.init(to: token, data: [0xab, 0xcd])])

    @Test("selectors and mode: execute 0xe9ae5c53, supportsExecutionMode 0xd03c7914, mode 0x01 then zeros")
    func constants() {
        #expect(Hex.encode(ERC7821Batch.executeSelector) == "0xe9ae5c53")
        #expect(Hex.encode(ERC7821Batch.supportsExecutionModeSelector) == "0xd03c7914")
        #expect(ERC7821Batch.singleBatchMode.hex == "0x01" + String(repeating: "00", count: 31))
        #expect(
            Hex.encode(ERC7821Batch.supportsExecutionModeCalldata())
                == "0xd03c7914" + "01" + String(repeating: "00", count: 31))
    }

    @Test("calldata equals eth-abi's encoding of execute(mode, abi.encode(calls)), and reads back")
    func matchesEthABI() async throws {
        let batches: [ERC7821Batch] = [
            ERC7821Batch(calls: []),
            Self.oneCall,
            ERC7821Batch(calls: [
                .init(to: Self.token, value: UInt256(7), data: []),
                .init(to: try Address("0x000000000000000000000000000000000000dEaD"), data: Array(0..<33)),
                .init(to: Self.token, value: UInt256(UInt64.max), data: Array(repeating: 0xff, count: 64)),
            ]),
        ]
        let script = """
            import json, sys
            from eth_abi import encode
            from eth_utils import keccak
            out = []
            for batch in json.load(sys.stdin):
                calls = [(c["to"], int(c["value"]), bytes.fromhex(c["data"][2:])) for c in batch]
                execution = encode(["(address,uint256,bytes)[]"], [calls])
                mode = bytes([1]) + bytes(31)
                body = encode(["bytes32", "bytes"], [mode, execution])
                out.append("0x" + (keccak(text="execute(bytes32,bytes)")[:4] + body).hex())
            print(json.dumps(out))
            """
        let input = JSONValue.array(
            batches.map { batch in
                .array(
                    batch.calls.map { call in
                        .object(
                            JSONObject([
                                "to": .string(call.to.checksummed), "value": .string(call.value.decimalString),
                                "data": .string(Hex.encode(call.data)),
                            ]))
                    })
            })
        let expected = try #require(try await PythonOracle.run(script, input: input).arrayValue)
        #expect(expected.map(\.stringValue) == batches.map { Hex.encode($0.calldata) })
        for batch in batches {
            #expect(try ERC7821Batch(decoding: batch.calldata) == batch)
        }
    }

    @Test("malformed calldata is refused with the field and its byte position")
    func strictDecoding() throws {
        let good = Self.oneCall.calldata
        #expect(good.count == 356)
        func refused(_ bytes: [UInt8]) -> ERC7821BatchError? {
            do {
                _ = try ERC7821Batch(decoding: bytes)
                return nil
            } catch { return error }
        }
        func changed(_ position: Int, to byte: UInt8) -> [UInt8] {
            var bytes = good
            bytes[position] = byte
            return bytes
        }
        let transfer = ERC20Calldata.transferSelector + Self.token.word.bytes + UInt256(1).word.bytes
        #expect(refused(transfer) == .wrongSelector(found: ERC20Calldata.transferSelector))
        #expect(refused([0xe9, 0xae]) == .wrongSelector(found: [0xe9, 0xae]))
        var opDataMode = ERC7821Batch.singleBatchMode
        opDataMode[6] = 0x78
        opDataMode[7] = 0x21
        opDataMode[9] = 0x01
        #expect(
            refused(Array(good.prefix(4)) + opDataMode.bytes + good.dropFirst(36))
                == .unsupportedMode(opDataMode))
        #expect(
            refused(Array(good.dropLast(40)))
                == .truncated(field: "executionData", position: 100, needed: 256, available: 216))
        #expect(
            refused(Array(good.prefix(50)))
                == .truncated(field: "executionData offset", position: 36, needed: 32, available: 14))
        #expect(refused(changed(132, to: 0x01)) == .tooLarge(field: "calls length", position: 132))
        #expect(refused(changed(196, to: 0x01)) == .addressNotPadded(field: "calls[0].target", position: 196))
        #expect(
            refused(changed(323, to: 0x40))
                == .truncated(field: "calls[0].data", position: 324, needed: 64, available: 32))
        #expect(refused(changed(330, to: 0x01)) == .nonCanonical(position: 330))
        #expect(refused(good + [0]) == .nonCanonical(position: 356))
        // An offset pointing elsewhere in bounds reads something, but not the canonical bytes.
        #expect(refused(changed(195, to: 0x00)) != nil)
        #expect(try ERC7821Batch(decoding: good) == Self.oneCall)
    }
}
