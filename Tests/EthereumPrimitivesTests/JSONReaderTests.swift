import EthereumPrimitives
import Testing

/// A located error the tests read back.
private struct Located: LocatedJSONError, Equatable {
    let path: String
    let problem: String

    init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }
}

private typealias Reader = JSONReader<Located>

@Suite("JSONReader: typed reads that name the path")
struct JSONReaderTests {
    private let document = #"""
        {"keys":[{"file":"a"},{"file":7}],"limits":{"max":"0x10","n":12},"flag":true,"none":null,
         "to":"0x00000000000000000000000000000000c0ffee00","chain":"eip155:8453"}
        """#

    @Test("members and elements build the path; present values read as their type")
    func reads() throws {
        let root = try Reader(parsing: document)
        #expect(try root["keys"][0]["file"].string() == "a")
        #expect(root["keys"][1]["file"].path == "keys[1].file")
        #expect(try root["limits"]["max"].uint256() == UInt256(16))
        #expect(try root["limits"]["n"].integer(in: 1...100) == 12)
        #expect(try root["flag"].bool())
        #expect(try root["to"].address() == Address("0x00000000000000000000000000000000c0ffee00"))
        #expect(try root["chain"].chain().description == "eip155:8453")
        #expect(try root["keys"].elements().map(\.path) == ["keys[0]", "keys[1]"])
        #expect(root["absent"].ifPresent == nil)
        #expect(root["none"].ifPresent != nil && root["none"].ifNotNull == nil)
        #expect(
            root["keys"][9].value == nil && root["flag"]["x"].value == nil, "out of range or not a container: absent")
    }

    @Test("every failure names the path and says what was expected")
    func failures() throws {
        let root = try Reader(parsing: document)
        func failure(_ read: () throws -> Void) -> Located? { #expect(throws: Located.self) { try read() } }
        #expect(failure { _ = try root["missing"].object() } == Located(path: "missing", problem: "missing"))
        #expect(
            failure { _ = try root["flag"].elements() }
                == Located(path: "flag", problem: "expected an array, got boolean"))
        #expect(
            failure { _ = try root["limits"]["n"].integer(in: 1...10) }
                == Located(path: "limits.n", problem: "expected a whole number in 1...10"))
        #expect(
            failure { _ = try root["limits"]["max"].bool() }
                == Located(path: "limits.max", problem: "expected true or false, got string"))
        #expect(failure { _ = try root["keys"][0]["file"].address() }?.path == "keys[0].file")
        #expect(
            failure { _ = try root["limits"].object(allowing: ["max"]) }
                == Located(path: "limits.n", problem: "unknown member (known: max)"))
        #expect(failure { _ = try Reader(parsing: "{") }?.path == "")
    }

    @Test("member names from the document are quoted abbreviated in paths")
    func untrustedNames() throws {
        let long = String(repeating: "k", count: 500)
        let root = try Reader(parsing: #"{"\#(long)":1}"#)
        let unknown = try #require(#expect(throws: Located.self) { try root.object(allowing: []) })
        #expect(unknown.path.count < 100 && unknown.path == EchoedText.abbreviated(long))
        #expect(try root.members().map(\.value.path) == [EchoedText.abbreviated(long)])
    }
}
