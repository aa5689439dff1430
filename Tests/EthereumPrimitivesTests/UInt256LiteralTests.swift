import EthereumPrimitives
import Testing

/// Integer literals of up to 256 bits.
@Suite struct UInt256LiteralTests {
    @Test func literalsAtTheLimbBoundaries() {
        let belowTwoTo64: UInt256 = 18_446_744_073_709_551_615
        let twoTo64: UInt256 = 18_446_744_073_709_551_616
        let twoTo128: UInt256 = 340_282_366_920_938_463_463_374_607_431_768_211_456
        #expect(belowTwoTo64 == UInt256(UInt64.max))
        #expect(twoTo64 == UInt256.powerOfTwo(64))
        #expect(twoTo64.limbs == (0, 1, 0, 0))
        #expect(twoTo128 == UInt256.powerOfTwo(128))
    }

    @Test func literalsAtTheTop() {
        let twoTo255: UInt256 =
            57_896_044_618_658_097_711_785_492_504_343_953_926_634_992_332_820_282_019_728_792_003_956_564_819_968
        let maximum: UInt256 =
            115_792_089_237_316_195_423_570_985_008_687_907_853_269_984_665_640_564_039_457_584_007_913_129_639_935
        let maximumInHex: UInt256 = 0xFFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF
        #expect(twoTo255 == UInt256.powerOfTwo(255))
        #expect(twoTo255.limbs == (0, 0, 0, 1 << 63))
        #expect(maximum == UInt256.max)
        #expect(maximumInHex == UInt256.max)
        #expect(
            maximum.decimalString == "115792089237316195423570985008687907853269984665640564039457584007913129639935")
    }

    @Test func smallLiterals() {
        let zero: UInt256 = 0
        let one: UInt256 = 1
        let wei: UInt256 = 1_000_000_000_000_000_000_000
        #expect(zero == .zero)
        #expect(zero.isZero)
        #expect(one == UInt256(1))
        #expect(wei.decimalString == "1000000000000000000000")
    }

    @Test func negativeLiteralTraps() async {
        await #expect(processExitsWith: .failure) {
            let negative: UInt256 = -1
            _ = negative
        }
    }

    @Test func literalOf2To256Traps() async {
        await #expect(processExitsWith: .failure) {
            let tooLarge: UInt256 =
                115_792_089_237_316_195_423_570_985_008_687_907_853_269_984_665_640_564_039_457_584_007_913_129_639_936
            _ = tooLarge
        }
    }
}
