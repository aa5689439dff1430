import Testing

@testable import SignerKitSupport

@Suite("LowestFree")
struct LowestFreeTests {
    @Test("the first value from the floor up that is not taken; values below the floor and repeats do not matter")
    func lowest() {
        let next: (Int) -> Int? = { $0 < 9 ? $0 + 1 : nil }
        #expect(LowestFree.value(atLeast: 3, notIn: [], successor: next) == 3)
        #expect(LowestFree.value(atLeast: 3, notIn: [0, 1, 2], successor: next) == 3)
        #expect(LowestFree.value(atLeast: 3, notIn: [3, 3, 4, 6], successor: next) == 5)
        #expect(LowestFree.value(atLeast: 3, notIn: [1, 3, 4, 5, 6, 7, 8], successor: next) == 9)
        #expect(LowestFree.value(atLeast: 3, notIn: [3, 4, 5, 6, 7, 8, 9], successor: next) == nil, "none is left")
    }
}
