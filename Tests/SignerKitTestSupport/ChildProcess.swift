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
    /// ``setEnvironment(_:_:)``.
    public static func run(_ process: Process) throws {
        try spawning.withLock { _ in try process.run() }
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
