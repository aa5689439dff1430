import Foundation
import SignerKitTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

#if os(Linux)
    /// The child-process helpers every test launcher uses (SignerKitTestSupport's `ChildProcess`): no
    /// descriptor leaks into a child, and no wait depends on another process closing one.
    @Suite("test child processes")
    struct ChildProcessTests {
        /// A started `/bin/sh -c script` with the given standard output.
        static func shell(_ script: String, stdout: Any, stdin: Any = FileHandle.nullDevice) throws -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script]
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = FileHandle.nullDevice
            try ChildProcess.runBlocking(process)
            return process
        }

        @Test("pipes are close-on-exec at both ends and do not reach other children")
        func pipesAreCloseOnExec() async throws {
            let pipe = ChildProcess.makePipe()
            let ends = [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor]
            #expect(ends.allSatisfy(ChildProcess.isCloseOnExec))
            let listing = FileManager.default.temporaryDirectory.appendingPathComponent("fds-\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: listing.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: listing) }
            let output = try FileHandle(forWritingTo: listing)
            defer { try? output.close() }
            let child = try Self.shell("ls /proc/$$/fd", stdout: output)
            #expect(await ChildProcess.onThread { ChildProcess.awaitExit(child, within: .seconds(30)) })
            let open = Set(
                try String(contentsOf: listing, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) })
            #expect(open.isSuperset(of: [0, 1, 2]))
            #expect(open.isDisjoint(with: ends), "the child has \(open.sorted())")
        }

        @Test("the first line is given up on at the deadline while another process holds the write end")
        func firstLineHasADeadline() async throws {
            let pipe = ChildProcess.makePipe()
            let input = ChildProcess.makePipe()
            // This child keeps the write end open and never writes (cat waits for input nobody sends): no end
            // of file comes until the test closes cat's input.
            let holder = try Self.shell("exec cat", stdout: pipe, stdin: input)
            defer {
                try? input.fileHandleForWriting.close()
                ChildProcess.terminateInBackground(holder)
            }
            let descriptor = pipe.fileHandleForReading.fileDescriptor
            let read = Task {
                await ChildProcess.onThread { ChildProcess.firstLine(from: descriptor, within: .seconds(1)) }
            }
            // A read that ignored its deadline would wait for the end of file: the bound ends that hang.
            let ended = await RealTime.value(of: read, within: .seconds(30))
            // Ended by the deadline, not by end of file: the holder still has the write end open.
            #expect(holder.isRunning, "the holder is gone")
            try? input.fileHandleForWriting.close()
            try #require(ended != nil, "the read did not end at its deadline")
            #expect(ended == .some(nil))
        }

        @Test("the first line is returned as soon as it is written, and end of file ends the read")
        func firstLineAndEndOfFile() async throws {
            let pipe = ChildProcess.makePipe()
            let writer = try Self.shell("printf 'LISTENING 1234\\nmore\\n'", stdout: pipe)
            defer { ChildProcess.terminateInBackground(writer) }
            let descriptor = pipe.fileHandleForReading.fileDescriptor
            let line = await ChildProcess.onThread { ChildProcess.firstLine(from: descriptor, within: .seconds(30)) }
            #expect(line == "LISTENING 1234")

            let silent = ChildProcess.makePipe()
            let quiet = try Self.shell("exit 0", stdout: silent)
            let none = silent.fileHandleForReading.fileDescriptor
            #expect(await ChildProcess.onThread { ChildProcess.firstLine(from: none, within: .seconds(30)) } == nil)
            #expect(await ChildProcess.onThread { ChildProcess.awaitExit(quiet, within: .seconds(30)) })
        }

        @Test("terminate ends a child that ignores SIGTERM, and its own children, within a bounded wait")
        func terminateEscalates() async throws {
            // Child processes are the subject. A grandchild too (the background sleep, which outlives every
            // bound here): it holds what Foundation watches for the child's exit, so it must be killed with the
            // child. Without the SIGKILL to the group, terminate's bounded wait ends with the child running.
            let stubborn = try Self.shell("trap '' TERM; sleep 600 & wait", stdout: FileHandle.nullDevice)
            await ChildProcess.onThread { ChildProcess.terminate(stubborn, grace: .milliseconds(500)) }
            try #require(!stubborn.isRunning)
            #expect(stubborn.terminationReason == .uncaughtSignal)
        }
    }
#endif
