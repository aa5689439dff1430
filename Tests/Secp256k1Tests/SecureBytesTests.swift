import SecureMemory
import Testing

@testable import Secp256k1

@Suite struct SecureBytesTests {
    @Test func wipeZeroesTheBuffer() {
        let bytes = SecureBytes(count: 48) { buffer in
            for i in 0..<buffer.count { buffer[i] = UInt8(truncatingIfNeeded: 0xa5 &+ i) }
        }
        #expect(bytes.withUnsafeBytes { $0.allSatisfy { $0 != 0 } })
        bytes.wipe()
        #expect(bytes.count == 48)
        #expect(bytes.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
    }

    @Test func livesInSecureMemory() throws {
        var source: [UInt8] = [1, 2, 3, 4]
        let bytes = SecureBytes(wiping: &source)
        #expect(bytes.isInSecureMemory)
        #expect(source == [0, 0, 0, 0])
        #expect(bytes.withUnsafeBytes { Array($0) } == [1, 2, 3, 4])
        let copy = SecureBytes(copying: bytes)
        bytes.wipe()
        #expect(copy.withUnsafeBytes { Array($0) } == [1, 2, 3, 4])
        #expect(copy.isInSecureMemory)
    }

    @Test func failedInitializerPropagatesError() {
        struct Boom: Error, Equatable {}
        #expect(throws: Boom()) {
            _ = try SecureBytes(count: 8) { (buffer: UnsafeMutableRawBufferPointer) throws(Boom) in
                buffer[0] = 1
                throw Boom()
            }
        }
    }

    @Test func redactedDescriptions() {
        var source: [UInt8] = [0xde, 0xad, 0xbe, 0xef]
        let bytes = SecureBytes(wiping: &source)
        var dumped = ""
        dump(bytes, to: &dumped)
        for output in [String(describing: bytes), String(reflecting: bytes), dumped] {
            #expect(!output.lowercased().contains("dead"))
            #expect(!output.contains("222"))  // 0xde as decimal
            #expect(output.contains("redacted"))
        }
    }

    @Test func manyAllocationsOutgrowTheInitialPool() {
        // 64 KiB initial pool; auto-expansion must cover more.
        let blocks = (0..<3000).map { i in SecureBytes(count: 32) { $0[0] = UInt8(truncatingIfNeeded: i) } }
        #expect(blocks.allSatisfy { $0.isInSecureMemory })
        #expect(blocks.enumerated().allSatisfy { i, b in b.withUnsafeBytes { $0[0] } == UInt8(truncatingIfNeeded: i) })
    }
}
