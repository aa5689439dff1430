import EthereumPrimitives
import Testing

@Suite struct KeccakTests {
    @Test func emptyInput() {
        #expect(Keccak256.hash([UInt8]()).hex == "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470")
    }

    @Test func shortText() {
        #expect(Keccak256.hash(utf8: "abc").hex == "0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45")
    }

    @Test(arguments: [0, 1, 135, 136, 137, 271, 272, 273, 1000])
    func incrementalMatchesOneShot(length: Int) {
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var hasher = Keccak256.Hasher()
        var offset = 0
        var step = 1
        while offset < bytes.count {
            let end = min(bytes.count, offset + step)
            hasher.update(Array(bytes[offset..<end]))
            offset = end
            step = step * 3 + 1
        }
        #expect(hasher.finalize() == Keccak256.hash(bytes))
    }

    @Test func permutationOfZeroState() {
        var state = [UInt64](repeating: 0, count: 25)
        KeccakF1600.permute(&state)
        #expect(state[0] == 0xF125_8F79_40E1_DDE7)
        #expect(state[24] == 0xEAF1_FF7B_5CEC_A249)
    }
}
