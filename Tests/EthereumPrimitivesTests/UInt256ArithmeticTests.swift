import EthereumPrimitives
import SignerKitTestSupport
import Testing

/// The reporting-overflow operations checked against ``Natural`` on every pair of a set of edge values
/// (limb and carry boundaries, 2^255, 2^256 - 1, …) and random values of every width; the operators
/// and the optional helpers checked to be the same operations.
@Suite struct UInt256ArithmeticTests {
    static let values: [UInt256] = {
        let tenTo77 = (0..<77).reduce(UInt256(1)) { power, _ in power.multipliedAdding(10, 0) ?? .zero }
        var values: [UInt256] = [
            0, 1, 2, 3, 10, 0xFFFF_FFFF, UInt256(1 << 32), UInt256(1 << 63), 0xFFFF_FFFF_FFFF_FFFF,
        ]
        for exponent in [64, 65, 127, 128, 191, 192, 255] {
            let power = UInt256.powerOfTwo(exponent)
            values += [power &- 1, power, power &+ 1]
        }
        values += [UInt256.max &- 1, .max, 1_000_000_000_000_000_000, tenTo77]
        var random = SplitMix64(seed: 0x5167_6E65_724B_6974)
        for width in 1...4 {
            for _ in 0..<3 {
                var limbs: [UInt64] = [0, 0, 0, 0]
                for i in 0..<width { limbs[i] = random.next() }
                values.append(UInt256(limbs: (limbs[0], limbs[1], limbs[2], limbs[3])))
            }
        }
        return values
    }()

    static var pairs: [(UInt256, UInt256)] { values.flatMap { a in values.map { (a, $0) } } }

    @Test func additionMatchesTheOracle() {
        for (a, b) in Self.pairs {
            let (sum, overflow) = a.addingReportingOverflow(b)
            let exact = Natural(a) + Natural(b)
            #expect(sum == exact.truncated.value, "\(a) + \(b)")
            #expect(overflow == !exact.truncated.fits, "\(a) + \(b)")
            #expect(a.adding(b) == (overflow ? nil : sum))
            #expect(a &+ b == sum)
            if !overflow { #expect(a + b == sum) }
        }
    }

    @Test func subtractionMatchesTheOracle() {
        for (a, b) in Self.pairs {
            let (difference, overflow) = a.subtractingReportingOverflow(b)
            #expect(overflow == (a < b), "\(a) - \(b)")
            // Below zero, the partial value is the difference modulo 2^256: a + 2^256 - b.
            let exact = overflow ? Natural(a) + Natural.twoTo256 - Natural(b) : Natural(a) - Natural(b)
            #expect(difference == exact.truncated.value, "\(a) - \(b)")
            #expect(exact.truncated.fits)
            #expect(a &- b == difference)
            if !overflow { #expect(a - b == difference) }
        }
    }

    @Test func multiplicationMatchesTheOracle() {
        for (a, b) in Self.pairs {
            let (product, overflow) = a.multipliedReportingOverflow(by: b)
            let exact = Natural(a) * Natural(b)
            #expect(product == exact.truncated.value, "\(a) * \(b)")
            #expect(overflow == !exact.truncated.fits, "\(a) * \(b)")
            let (high, low) = a.multipliedFullWidth(by: b)
            #expect(low == product)
            #expect(Natural(high) * Natural.twoTo256 + Natural(low) == exact, "\(a) * \(b) full width")
            #expect(a.multiplied(by: b) == (overflow ? nil : product))
            #expect(a &* b == product)
            if !overflow { #expect(a * b == product) }
        }
    }

    @Test func divisionMatchesTheOracle() {
        for (a, b) in Self.pairs {
            let (quotient, divisionOverflow) = a.dividedReportingOverflow(by: b)
            let (remainder, remainderOverflow) = a.remainderReportingOverflow(dividingBy: b)
            if b.isZero {
                // The standard library's convention: the dividend back, with the flag set.
                #expect(divisionOverflow && remainderOverflow)
                #expect(quotient == a && remainder == a)
                continue
            }
            #expect(!divisionOverflow && !remainderOverflow)
            #expect(remainder < b, "\(a) % \(b)")
            #expect(Natural(quotient) * Natural(b) + Natural(remainder) == Natural(a), "\(a) / \(b)")
            #expect(a / b == quotient)
            #expect(a % b == remainder)
            let both = a.quotientAndRemainder(dividingBy: b)
            #expect(both.quotient == quotient && both.remainder == remainder)
        }
    }

    @Test func operatorsOnOrdinaryValues() {
        let ether: UInt256 = 1_000_000_000_000_000_000
        var balance = ether * 3
        balance -= ether / 2
        balance += 7
        #expect(balance.decimalString == "2500000000000000007")
        #expect(balance % 10 == 7)
        #expect(balance / ether == 2)
        balance *= 4
        balance /= 3
        #expect(balance.decimalString == "3333333333333333342")
        balance %= ether
        #expect(balance.decimalString == "333333333333333342")
        #expect([UInt256(1), 2, 3].reduce(.zero, +) == 6)
        #expect(UInt256.max - .max == .zero)
        #expect(UInt256.max / .max == 1)
        #expect(UInt256.powerOfTwo(128) * UInt256.powerOfTwo(127) == UInt256.powerOfTwo(255))
    }

    @Test func exactlyConvertsOnlyWhatFits() {
        #expect(UInt256(exactly: 0) == .zero)
        #expect(UInt256(exactly: Int.max) == UInt256(UInt64(Int.max)))
        #expect(UInt256(exactly: UInt64.max) == UInt256(UInt64.max))
        #expect(UInt256(exactly: -1) == nil)
        #expect(UInt256(exactly: Int64.min) == nil)
        #expect(UInt256(exactly: UInt128.max) == UInt256.powerOfTwo(128) &- 1)
        #expect(UInt256(exactly: Int128.min) == nil)
    }

    // The traps themselves, each in a child process (Swift Testing exit tests).
    @Test func additionOverflowTraps() async {
        await #expect(processExitsWith: .failure) { _ = UInt256.max + 1 }
    }

    @Test func subtractionBelowZeroTraps() async {
        await #expect(processExitsWith: .failure) { _ = UInt256(1) - 2 }
    }

    @Test func multiplicationOverflowTraps() async {
        await #expect(processExitsWith: .failure) { _ = UInt256.powerOfTwo(128) * UInt256.powerOfTwo(128) }
    }

    @Test func divisionByZeroTraps() async {
        await #expect(processExitsWith: .failure) { _ = UInt256.max / UInt256.zero }
        await #expect(processExitsWith: .failure) { _ = UInt256.max % UInt256.zero }
    }
}
