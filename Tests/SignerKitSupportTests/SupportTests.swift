import Testing

@testable import SignerKitSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Shared helpers")
struct SupportTests {
    /// A pipe's read and write ends.
    static func pipeEnds() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    @Test("POSIXIO: every byte written arrives; fill stops at the end of the file; errors carry errno")
    func posixIO() throws {
        // A file, not a pipe: 200 KB is more than a pipe holds without a reader.
        var template = Array("/tmp/signerkit-posixio-XXXXXX".utf8CString)
        let file = template.withUnsafeMutableBufferPointer { $0.baseAddress.map { mkstemp($0) } ?? -1 }
        try #require(file >= 0)
        defer {
            close(file)
            template.withUnsafeBufferPointer { buffer in _ = buffer.baseAddress.map { unlink($0) } }
        }
        let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let writing = payload.withUnsafeBytes { POSIXIO.writeAll($0, to: file) }
        #expect(throws: Never.self) { try writing.get() }
        #expect(lseek(file, 0, SEEK_SET) == 0)
        #expect(try POSIXIO.readToEnd(file).get() == payload)
        #expect(try POSIXIO.readToEnd(file).get() == [])

        let (second, secondWriter) = try Self.pipeEnds()
        defer { close(second) }
        _ = POSIXIO.writeAll("hello", to: secondWriter)
        close(secondWriter)
        var buffer = [UInt8](repeating: 0xAA, count: 16)
        let filled = buffer.withUnsafeMutableBytes { POSIXIO.fill($0, from: second) }
        #expect(try filled.get() == 5)
        #expect(Array(buffer[0..<5]) == Array("hello".utf8))
        #expect(buffer[5] == 0xAA)

        let closed = buffer.withUnsafeMutableBytes { POSIXIO.readOnce(-1, into: $0) }
        #expect(throws: SystemError(code: EBADF)) { try closed.get() }
        #expect(POSIXIO.retryingInterrupts { close(-1) } == -1)
    }

    @Test("PercentEncoding: only unreserved characters pass; UTF-8 bytes as upper-case %XX; form spaces")
    func percentEncoding() {
        #expect(PercentEncoding.encode("AZaz09-._~") == "AZaz09-._~")
        #expect(PercentEncoding.encode("a b&c=d/e?f#g+h%") == "a%20b%26c%3Dd%2Fe%3Ff%23g%2Bh%25")
        #expect(PercentEncoding.encode("a b", spaceAsPlus: true) == "a+b")
        #expect(PercentEncoding.encode("é€") == "%C3%A9%E2%82%AC")
        #expect(PercentEncoding.escape(0xFF) == "%FF")
        #expect((0...255).filter { PercentEncoding.isUnreserved(UInt8($0)) }.count == 66)
    }

    @Test("Durations: seconds as a Double; milliseconds rounded up, never negative, clamped")
    func durations() {
        #expect(Duration.milliseconds(1500).secondsValue == 1.5)
        #expect(Duration.nanoseconds(1).millisecondsRoundedUp == 1)
        #expect(Duration.milliseconds(2).millisecondsRoundedUp == 2)
        #expect(Duration.nanoseconds(2_000_001).millisecondsRoundedUp == 3)
        #expect(Duration.zero.millisecondsRoundedUp == 0)
        #expect(Duration.seconds(-5).millisecondsRoundedUp == 0)
        #expect(Duration.seconds(Int64.max).millisecondsRoundedUp == Int64.max)
    }

    @Test("MemoryWiping zeroes every byte")
    func wiping() {
        var secret = [UInt8](repeating: 0x5A, count: 97)
        secret.withUnsafeMutableBytes { MemoryWiping.wipe($0) }
        #expect(secret.allSatisfy { $0 == 0 })
        MemoryWiping.wipe(UnsafeMutableRawBufferPointer(start: nil, count: 0))
    }
}
