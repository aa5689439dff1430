import EIP712
import EthereumPrimitives
import Testing

/// Generated structs of the vectors' harder shapes: nested and fixed arrays, narrow and wide integers, `bytesN`,
/// a struct holding itself through an array, and member names that are Swift keywords.
@Suite struct GeneratedShapesTests {
    @Test func multidimensionalArrays() throws {
        let domain = MultidimArrays.EIP712Domain(name: "Grid", version: "1", chainId: 137)
        let grid = MultidimArrays.Grid(
            cells: [[1, 2, 3], [4, 5, 65535]],
            ragged: [[], [-1, 2], [-2_147_483_648]],
            fixedOfDyn: [
                [],
                [
                    try Address("0xF98B484BBE7894EF77FE06157116882F5C4849CB"),
                    try Address("0xC8A0F9299E378e1d8adF81E815c35168D3dB43C5"),
                ],
            ],
            strs: [["a", "日本"], ["", "🦊"]],
            cube: [[[[0x01, 0x02]], [[0xff, 0xff]]], [[[0x00, 0x00]], [[0xab, 0xcd]]]],
            emptyOuter: [])
        try VectorCheck.expectMatches(grid, domain: domain, vector: "multidim-arrays")
    }

    @Test func narrowIntegersAndBytes3() throws {
        let domain = Bounds24.EIP712Domain(name: "Bounds", chainId: 1)
        let bounds = Bounds24.Bounds(
            umax: 16_777_215, umin: 0, imin: -8_388_608, imax: 8_388_607, ineg1: -1, b: [0xc5, 0xd8, 0x9d])
        try VectorCheck.expectMatches(bounds, domain: domain, vector: "bounds-24")
    }

    @Test("a value wider than its EIP-712 type is an error naming the member, never a trap")
    func valuesThatDoNotFit() throws {
        func refusal(_ bounds: Bounds24.Bounds) throws -> EIP712Error {
            try #require(throws: EIP712Error.self) { try bounds.hashStruct() }
        }
        let fits = Bounds24.Bounds(
            umax: 16_777_215, umin: 0, imin: -8_388_608, imax: 8_388_607, ineg1: -1, b: [1, 2, 3])
        _ = try fits.hashStruct()
        var wide = fits
        wide.umax = 16_777_216
        #expect(try refusal(wide).description == "umax: the value does not fit in uint24")
        wide = fits
        wide.imin = -8_388_609
        #expect(try refusal(wide).description == "imin: the value does not fit in int24")
        wide = fits
        wide.b = [1, 2]
        #expect(try refusal(wide).description == "b: expected 3 bytes, got 2")
        // Inside arrays the index is named: a fixed-size array of the wrong length, then an element that does not fit.
        var grid = MultidimArrays.Grid(
            cells: [[1, 2, 3], [4, 5, 6]], ragged: [], fixedOfDyn: [[], []], strs: [], cube: [], emptyOuter: [])
        _ = try grid.hashStruct()
        grid.cells = [[1, 2, 3]]
        #expect(throws: EIP712Error(.arrayLength(expected: 2, actual: 1), at: [.key("cells")])) {
            try grid.hashStruct()
        }
        grid.cells = [[1, 2, 3], [4, 5]]
        #expect(throws: EIP712Error(.arrayLength(expected: 3, actual: 2), at: [.key("cells"), .index(1)])) {
            try grid.hashStruct()
        }
        grid.cells = [[1, 2, 3], [4, 5, 6]]
        grid.cube = [[[[0x01]], [[0x02, 0x03]]]]
        #expect(
            throws: EIP712Error(
                .bytesLength(expected: 2, actual: 1), at: [.key("cube"), .index(0), .index(0), .index(0)])
        ) {
            try grid.hashStruct()
        }
    }

    @Test func wideIntegersAndBytes32() throws {
        let domain = Bounds256.EIP712Domain(name: "Bounds", chainId: 1)
        let bounds = Bounds256.Bounds(
            umax: .max, umin: 0,
            imin: try SignedMagnitude(
                text: "-57896044618658097711785492504343953926634992332820282019728792003956564819968"),
            imax: try SignedMagnitude(text: "0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"),
            ineg1: try SignedMagnitude(text: "-1"),
            b: try Bytes32(hex: "0xd80291672947c454dffc7dfc4ab913698e6118dc74db27f7c676418b089842a5"))
        try VectorCheck.expectMatches(bounds, domain: domain, vector: "bounds-256")
    }

    @Test func structHoldingItselfThroughAnArray() throws {
        let domain = RecursivePerson.EIP712Domain(
            salt: try Bytes32(hex: "0x9f8c6c97da369b2e25cb4b8598871591f46dd3acbb355800c0fd5eff0f503337"))
        let person = RecursivePerson.Person(
            count: ["日本語テキスト", "mixed ASCII + 中文 + emoji 👍🏽"],
            to: try Hex.decode("0x3A0F0287803AC605799236DDB8271DF3E1E71376E8BEB301C78C"), data: true, salt: [[[]]],
            ratio: try Hex.decode("0x0eebb617693c47024c45168a4bbc6c932239bf26"),
            deadline: [try Hex.decode("0x7e1044e29378d8e257172f9bea853c4b31d99afaf7bbdf3963adc0")], children: [])
        try VectorCheck.expectMatches(person, domain: domain, vector: "recursive-3")
    }

    @Test func keywordMemberNamesMatchTheRuntime() throws {
        let domain = KeywordNames.EIP712Domain(name: "Keywords", chainId: 10)
        let message = KeywordNames.Keywords(
            default: true, class: [0xde, 0xad], in: -549_755_813_888, words: ["a", "b"],
            protocol: KeywordNames.Switch(case: 16_777_215, return: [[1, 2, 3, 4, 5, 6, 7], [0, 0, 0, 0, 0, 0, 0]]))
        let document = """
            {"types": {
              "EIP712Domain": [{"name": "name", "type": "string"}, {"name": "chainId", "type": "uint256"}],
              "Keywords": [{"name": "default", "type": "bool"}, {"name": "class", "type": "bytes"},
                           {"name": "in", "type": "int40"}, {"name": "words", "type": "string[]"},
                           {"name": "protocol", "type": "Switch"}],
              "Switch": [{"name": "case", "type": "uint24"}, {"name": "return", "type": "bytes7[2]"}]},
             "primaryType": "Keywords", "domain": {"name": "Keywords", "chainId": 10},
             "message": {"default": true, "class": "0xdead", "in": "-549755813888", "words": ["a", "b"],
                         "protocol": {"case": 16777215, "return": ["0x01020304050607", "0x00000000000000"]}}}
            """
        try VectorCheck.expectMatchesRuntime(message, domain: domain, typedDataJSON: document)
    }
}
