import Foundation
import SignerKitCurl
import SignerKitTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

#if os(Linux)
    /// The sockets libcurl opens are close-on-exec: found through /proc while a request hangs.
    @Suite("libcurl sockets")
    struct CloseOnExecTests {
        /// The inodes of this process's TCP sockets connected to 127.0.0.1:`port`.
        static func socketInodes(remotePort port: Int) throws -> Set<String> {
            var inodes = Set<String>()
            let hex = String(port, radix: 16, uppercase: true)
            let remote = "0100007F:" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            // procfs files report size 0: read to the end, not one chunk.
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/net/tcp"))
            defer { try? handle.close() }
            let table = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
            for line in table.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                if fields.count > 9, fields[2] == remote { inodes.insert(String(fields[9])) }
            }
            return inodes
        }

        /// This process's descriptors for those inodes, with their FD_CLOEXEC flag.
        static func descriptors(for inodes: Set<String>) throws -> [(Int32, Bool)] {
            var found: [(Int32, Bool)] = []
            for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
                guard let fd = Int32(name),
                    let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                    target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst(8).dropLast()))
                else { continue }
                found.append((fd, fcntl(fd, F_GETFD) & FD_CLOEXEC != 0))
            }
            return found
        }

        @Test("a request in flight holds a close-on-exec socket")
        func closeOnExec() async throws {
            let server = try await FaultServer.start()
            defer { server.stop() }
            try await server.add(FaultRule(.hang))
            let url = try #require(URL(string: "/hang", relativeTo: server.url)?.absoluteURL)
            let task = Task { () async throws(HTTPError) -> HTTPResponse in
                try await CurlHTTPTransport.shared.send(HTTPRequest(method: "GET", url: url, timeout: .seconds(30)))
            }
            // The connection opens at the machine's pace; the bound only ends a hang.
            let sockets: [(Int32, Bool)] =
                try await RealTime.first(within: .seconds(30)) { () throws -> [(Int32, Bool)]? in
                    let found = try Self.descriptors(for: Self.socketInodes(remotePort: server.port))
                    return found.isEmpty ? nil : found
                } ?? []
            task.cancel()
            let result = await task.result
            #expect(!sockets.isEmpty, "no socket to the server was found; the request ended with \(result)")
            for (fd, closeOnExec) in sockets { #expect(closeOnExec, "descriptor \(fd) is inherited by children") }
        }
    }
#endif
