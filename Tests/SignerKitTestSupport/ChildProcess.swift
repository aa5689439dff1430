import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Starting and awaiting child processes from a test process that runs many tests at once,
/// without one child inheriting another's descriptors and without blocking Swift's cooperative
/// pool.
///
/// swift-corelibs-foundation's `Process.run()` on Linux learns that a child has exited only when
/// a socket pair end the child holds is closed (until then `isRunning` stays true), and it closes
/// in the child only the descriptors 3...max that are open while it prepares the spawn. A
/// descriptor another thread opens meanwhile (the socket pair of a concurrent `run()`, the write
/// end of a new `Pipe`) leaks into the child. When the leaking child is long-lived (a local EVM
/// node), the other child's exit goes unnoticed and a reader of its pipe never sees end of file
/// until the long-lived one exits: a test waiting for it waits for ever. So every start of a child
/// by the test helpers, and every pipe they make, goes through one lock (``run(_:)``,
/// ``makePipe()``), pipes are close-on-exec, and every wait is bounded.
public enum ChildProcess {
    /// Held while a child is started or a pipe is made.
    private static let spawning = Mutex(())

    /// Sets (or, with `nil`, removes) environment variable `name` while no child is being started:
    /// `Process.run()` copies the environment as it spawns, and a `setenv` reallocating it meanwhile
    /// crashes the copy (seen: `memcpy` in `Process.run()` beside a test that set a PIN variable).
    public static func setEnvironment(_ name: String, _ value: String?) {
        spawning.withLock { _ in
            if let value { _ = setenv(name, value, 1) } else { _ = unsetenv(name) }
        }
    }

    /// `process.run()`, never at the same time as another ``run(_:)``, ``makePipe()`` or
    /// ``setEnvironment(_:_:)``; then closes the test's copies of the files given as the child's standard
    /// streams (the child has its own).
    ///
    /// Foundation on Linux keeps every `Process` it started alive (its run loop source stays on the starting
    /// thread's run loop), and with it the `FileHandle`s it was given: a run of the whole suite held 1,350
    /// descriptors that way. Past about 1,360 open descriptors `Process.run()` itself crashes (`memcpy` with a
    /// page-aligned address): it lists `/proc/self/fd` and copies each entry's whole 256-byte name field,
    /// which reads past glibc's 32 KiB directory buffer when that buffer is full.
    ///
    /// Leaks are not the only way there: at the busiest moment of a run, tests running at once hold about 1,100
    /// sockets, pipes and event descriptors. So past ``descriptorCeiling`` a start waits a little (at most 10 s,
    /// then starts anyway: the tests waiting to start children hold descriptors too, and must not wait on each
    /// other for long).
    public static func run(_ process: Process) async throws {
        _ = await RealTime.poll(within: .seconds(10)) { openDescriptorCount() < descriptorCeiling }
        try spawn(process)
    }

    /// ``run(_:)`` for a caller that may block (on a thread of its own, or before a child it waits for).
    public static func runBlocking(_ process: Process) throws {
        _ = RealTime.pollBlocking(within: .seconds(10)) { openDescriptorCount() < descriptorCeiling }
        try spawn(process)
    }

    /// Starts `process` under the lock, then closes the test's copies of its standard-stream files.
    private static func spawn(_ process: Process) throws {
        try spawning.withLock { _ in try process.run() }
        for stream in [process.standardInput, process.standardOutput, process.standardError] {
            guard let handle = stream as? FileHandle, handle !== FileHandle.nullDevice,
                handle !== FileHandle.standardInput, handle !== FileHandle.standardOutput,
                handle !== FileHandle.standardError
            else { continue }
            try? handle.close()
        }
    }

    /// The open descriptors from which a start waits: `Process.run()` crashes from about 1,355 on (32,768
    /// bytes of 24-byte directory entries, less the 256 bytes copied past the last one; see ``run(_:)``), and
    /// descriptors other tests open between the count and the spawn need room.
    public static let descriptorCeiling = 1_250

    /// The number of descriptors this process has open (entries of `/proc/self/fd`, counted without copying
    /// their names), or 0 when it cannot be read.
    public static func openDescriptorCount() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while readdir(directory) != nil { count += 1 }
        // ".", ".." and the descriptor of the listing itself.
        return max(0, count - 3)
    }

    /// Reads `pipe` to its end and closes the reading end (see ``run(_:)`` for why closing matters).
    /// Blocking: call it on a thread of its own.
    public static func readToEnd(_ pipe: Pipe) -> Data {
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        try? pipe.fileHandleForReading.close()
        return data
    }

    /// A pipe whose ends are both close-on-exec (a child still gets the one it is given as
    /// standard input or output: the spawn duplicates it onto 0, 1 or 2, which clears the flag),
    /// made while no child is being started.
    public static func makePipe() -> Pipe {
        spawning.withLock { _ in
            let pipe = Pipe()
            setCloseOnExec(pipe.fileHandleForReading.fileDescriptor)
            setCloseOnExec(pipe.fileHandleForWriting.fileDescriptor)
            return pipe
        }
    }

    /// Sets `FD_CLOEXEC` on `descriptor`.
    public static func setCloseOnExec(_ descriptor: Int32) {
        let flags = fcntl(descriptor, F_GETFD)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
    }

    /// Whether `descriptor` has `FD_CLOEXEC`.
    public static func isCloseOnExec(_ descriptor: Int32) -> Bool {
        let flags = fcntl(descriptor, F_GETFD)
        return flags >= 0 && flags & FD_CLOEXEC != 0
    }

    /// Polls until `process` has exited or the ``RealTime/Bound`` `limit` has passed; true when it has exited. Blocks the
    /// calling thread: use it on a thread of its own (``onThread(_:)``). Not `waitUntilExit`: it
    /// can spin forever on Linux Foundation.
    public static func awaitExit(_ process: Process, within limit: Duration) -> Bool {
        RealTime.pollBlocking(within: limit) { !process.isRunning }
    }

    /// SIGTERM, SIGKILL if still running after `grace`, then waits (bounded) until Foundation has
    /// seen the exit. Blocking: call it on a thread of its own.
    ///
    /// SIGKILL goes to the child's process group (Foundation starts each child as the leader of a
    /// group of its own): a grandchild left behind would keep the child's exit from being seen.
    public static func terminate(_ process: Process, grace: Duration = .seconds(5)) {
        if process.isRunning { process.terminate() }
        if !awaitExit(process, within: grace) {
            let pid = process.processIdentifier
            if pid > 0 { kill(-pid, SIGKILL) }
            _ = awaitExit(process, within: .seconds(30))
        }
    }

    /// Takes the process out of `slot` (so a second call does nothing), ends it with
    /// ``terminateInBackground(_:)`` and removes its log file: the `stop()` of the test servers.
    public static func stopOnce(_ slot: borrowing Mutex<Process?>, removing log: URL) {
        let running = slot.withLock { current -> Process? in
            defer { current = nil }
            return current
        }
        guard let running else { return }
        terminateInBackground(running)
        try? FileManager.default.removeItem(at: log)
    }

    /// Sends SIGTERM now and leaves the rest of ``terminate(_:grace:)`` to a thread of its own, so
    /// the caller (often on the cooperative pool, in a `defer`) is not held up.
    public static func terminateInBackground(_ process: Process) {
        if process.isRunning { process.terminate() }
        Thread.detachNewThread { terminate(process) }
    }

    /// Runs blocking work (pipe reads, waiting for a child) on a thread of its own, off Swift's
    /// cooperative pool (two threads on a two-core machine), and resumes with its result.
    public static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.start()
        }
    }

    /// The first line read from `descriptor`, or `nil` at end of file, on a read error, or when
    /// none has come within `limit` (a ``RealTime/Bound``). Polls, so it ends on time even when another
    /// process holds the pipe's write end open. Blocking: call it on a thread of its own.
    public static func firstLine(from descriptor: Int32, within limit: Duration) -> String? {
        let bound = RealTime.Bound(limit)
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !bound.hasPassed {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, 100)
            if ready < 0 && errno != EINTR { return nil }
            guard ready > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return nil
            }
            if count == 0 { return buffer.isEmpty ? nil : String(decoding: buffer, as: UTF8.self) }
            buffer.append(contentsOf: chunk[..<count])
            if let newline = buffer.firstIndex(of: 0x0A) {
                return String(decoding: buffer[..<newline], as: UTF8.self)
            }
        }
        return nil
    }
}
