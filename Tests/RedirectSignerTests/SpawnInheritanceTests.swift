import Foundation
import SignerKitTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

#if os(Linux)
    /// The browser is started with `posix_spawn`, which on Linux passes every descriptor without
    /// close-on-exec to the child; `HeadlessChromium.closeFrom` makes sure none beyond its own
    /// reaches it.
    @Suite("spawned browser descriptors")
    struct SpawnInheritanceTests {
        /// The descriptors a `posix_spawn`ed shell has open, with or without `closeFrom(3)`.
        static func childDescriptors(closing: Bool) async throws -> Set<Int32> {
            let listing = FileManager.default.temporaryDirectory.appendingPathComponent("fds-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: listing) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, listing.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            if closing { HeadlessChromium.closeFrom(3, in: &actions) }
            let arguments = ["/bin/sh", "-c", "ls /proc/$$/fd"]
            let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            var child: pid_t = 0
            let spawned = argv.withUnsafeBufferPointer { buffer in
                buffer.baseAddress.map { posix_spawn(&child, "/bin/sh", &actions, nil, $0, environ) } ?? -1
            }
            try #require(spawned == 0)
            let spawnedChild = child
            // A real wait, the child process being its subject, on a thread of its own (never the pool's).
            try await onThread {
                var status: Int32 = 0
                while waitpid(spawnedChild, &status, 0) < 0 && errno == EINTR {}
            }
            let text = try String(contentsOf: listing, encoding: .utf8)
            return Set(text.split(separator: "\n").compactMap { Int32($0) })
        }

        @Test("a descriptor without close-on-exec reaches the child unless closeFrom closes it")
        func closeFromKeepsOtherDescriptorsOut() async throws {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)  // deliberately without O_CLOEXEC
            defer { for fd in ends { close(fd) } }
            #expect(try await Self.childDescriptors(closing: false).isSuperset(of: ends))
            let closed = try await Self.childDescriptors(closing: true)
            #expect(closed.isSuperset(of: [0, 1, 2]))
            #expect(closed.isDisjoint(with: ends), "the child has \(closed.sorted())")
        }
    }
#endif
