import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real PostgreSQL server for tests, from Debian's packages (`/usr/lib/postgresql/*/bin`): a fresh cluster
/// in a temporary directory, listening on 127.0.0.1 on a free port (its Unix-domain socket inside that
/// directory), password authentication only (scram-sha-256; a random password in a 0600 file). Run as the
/// `postgres` system user when the tests run as root (`setpriv`, the directory given to that user).
///
/// The server runs under a small `sh` watchdog: ``stop()`` (or the end of the test process, through
/// `atexit`) sends it SIGTERM and it shuts PostgreSQL down (fast shutdown: open sessions are ended); if the
/// test process dies without that, the watchdog sees it within a fraction of a second and does the same,
/// then removes the directory. No postgres process outlives the tests.
public final class PostgresServer: Sendable {
    /// The address the server listens on.
    public let host = "127.0.0.1"
    /// Its port.
    public let port: UInt16
    /// The superuser it was made with.
    public let user = "signerkit"
    /// That user's password.
    public let password: String
    /// The cluster's directory (data, socket, password files, log).
    public let directory: URL
    /// The server's log (read into errors when it fails).
    public var logPath: String { directory.appendingPathComponent("server.log").path }

    private let binaries: URL
    private let watchdog: Mutex<Process?>
    private let postmaster: Int32

    /// The server the tests of this process share, started on first use.
    public static let shared = Task { try await PostgresServer.start() }

    /// Servers still running, stopped at exit.
    private static let running = Mutex<[PostgresServer]>([])
    private static let stopsAtExit: Void = {
        atexit { for server in PostgresServer.running.withLock({ $0 }) { server.stop() } }
    }()

    private init(binaries: URL, directory: URL, port: UInt16, password: String, watchdog: Process, postmaster: Int32) {
        self.binaries = binaries
        self.directory = directory
        self.port = port
        self.password = password
        self.watchdog = Mutex(watchdog)
        self.postmaster = postmaster
    }

    deinit { stop() }

    /// The newest installed PostgreSQL's `bin` directory.
    public static var binaries: URL? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init)
        return versions.sorted().reversed().lazy.map { URL(fileURLWithPath: "\(root)/\($0)/bin") }
            .first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("postgres").path) }
    }

    /// Makes a cluster and starts its server (a new port is tried when the one picked was taken meanwhile).
    public static func start() async throws -> PostgresServer {
        try await ChildProcess.onThread { () -> Result<PostgresServer, ToolRun.Failure> in
            Result { () throws(ToolRun.Failure) in try startBlocking() }
        }.get()
    }

    /// Stops the server and removes its directory (idempotent; blocks until PostgreSQL has exited, bounded).
    public func stop() {
        let process = watchdog.withLock { current -> Process? in
            defer { current = nil }
            return current
        }
        guard let process else { return }
        Self.running.withLock { $0.removeAll { $0 === self } }
        // Not awaiting the watchdog: it ends by itself once the server has, and Foundation may no longer
        // notice exits while the process itself exits.
        kill(process.processIdentifier, SIGTERM)
        if !Self.awaitGone(postmaster, within: .seconds(30)) {
            kill(postmaster, SIGKILL)
            _ = Self.awaitGone(postmaster, within: .seconds(10))
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Creates a new, empty database; its name.
    public func createDatabase() async throws -> String {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await psql("CREATE DATABASE \(name)")
        return name
    }

    /// Runs one SQL command through `psql` (password from a 0600 passfile, on a thread of its own); its
    /// unaligned output without headers.
    @discardableResult
    public func psql(_ command: String, database: String = "postgres") async throws -> String {
        try await ChildProcess.onThread { () -> Result<String, any Error> in
            Result { try self.psqlBlocking(command, database: database) }
        }.get()
    }

    private func psqlBlocking(_ command: String, database: String) throws -> String {
        try Self.runTool(
            binaries.appendingPathComponent("psql").path,
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", String(port), "-U", user,
                "-d", database, "-c", command,
            ],
            in: directory, environment: ["PGPASSFILE": directory.appendingPathComponent("pgpass").path],
            asServerUser: false)
    }

    // MARK: starting

    private static func startBlocking() throws(ToolRun.Failure) -> PostgresServer {
        guard let binaries else { throw ToolRun.Failure(description: "no PostgreSQL under /usr/lib/postgresql") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signerkit-pg-\(UUID())")
        let password = randomHex(bytes: 24)
        do {
            try prepare(directory, password: password, binaries: binaries)
            var lastFailure = ToolRun.Failure(description: "PostgreSQL did not start")
            for _ in 0..<3 {
                let port = try freePort()
                try writePrivate("127.0.0.1:\(port):*:signerkit:\(password)\n", to: "pgpass", in: directory)
                do {
                    let (watchdog, postmaster) = try launch(binaries: binaries, directory: directory, port: port)
                    let server = PostgresServer(
                        binaries: binaries, directory: directory, port: port, password: password, watchdog: watchdog,
                        postmaster: postmaster)
                    _ = stopsAtExit
                    running.withLock { $0.append(server) }
                    return server
                } catch let failure as ToolRun.Failure {
                    lastFailure = failure
                }
            }
            throw lastFailure
        } catch let failure as ToolRun.Failure {
            try? FileManager.default.removeItem(at: directory)
            throw failure
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw ToolRun.Failure(description: "PostgreSQL set-up: \(error)")
        }
    }

    /// The directory (given to `postgres` when root), the password file and the cluster (`initdb`).
    private static func prepare(_ directory: URL, password: String, binaries: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        // Modes set explicitly: the process's umask is not this code's to rely on.
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("socket"), withIntermediateDirectories: true)
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o700], ofItemAtPath: directory.appendingPathComponent("socket").path)
        try writePrivate(password + "\n", to: "password", in: directory)
        for name in ["", "socket", "password"] { try handOver(directory.appendingPathComponent(name).path) }
        try runTool(
            binaries.appendingPathComponent("initdb").path,
            [
                "-D", directory.appendingPathComponent("data").path, "-U", "signerkit",
                "--pwfile=\(directory.appendingPathComponent("password").path)", "--auth=scram-sha-256",
                "-E", "UTF8", "--locale=C", "--no-sync",
            ], in: directory)
    }

    /// Starts the watchdog, which starts the server; waits until the server is ready (its pid file says so).
    private static func launch(binaries: URL, directory: URL, port: UInt16) throws -> (Process, Int32) {
        let data = directory.appendingPathComponent("data")
        let server = [
            binaries.appendingPathComponent("postgres").path, "-D", data.path, "-h", "127.0.0.1", "-p", String(port),
            "-k", directory.appendingPathComponent("socket").path, "-c", "fsync=off", "-c", "full_page_writes=off",
            "-c", "unix_socket_permissions=0700", "-c", "max_connections=200", "-c", "shared_buffers=32MB",
        ]
        // $1: the directory, $2: the test process; the rest: the server's command. SIGTERM (or the test
        // process gone) → SIGINT, PostgreSQL's fast shutdown; the directory goes too when the test process did.
        // The loop's sleep is a real one: processes are the subject, and sh learns of a non-child's end only
        // by looking (kill -0); no test waits for it.
        let script = """
            dir=$1; parent=$2; shift 2
            "$@" >"$dir/server.log" 2>&1 &
            pg=$!
            trap 'kill -INT "$pg" 2>/dev/null' TERM
            while kill -0 "$parent" 2>/dev/null && kill -0 "$pg" 2>/dev/null; do sleep 0.2; done
            kill -INT "$pg" 2>/dev/null
            wait "$pg"
            kill -0 "$parent" 2>/dev/null || rm -rf "$dir"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments =
            ["-c", script, "sh", directory.path, String(getpid())] + asPostgresUser() + server
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try ChildProcess.runBlocking(process)
        let pidFile = data.appendingPathComponent("postmaster.pid").path
        var ready: Int32?
        // The server starts at the machine's pace; the bound only ends a hang (it starts in about a second).
        _ = RealTime.pollBlocking(within: .seconds(30)) {
            // postmaster.pid: line 1 the pid, line 8 the status ("ready" once it accepts connections).
            let lines = ((try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? "")
                .split(separator: "\n", omittingEmptySubsequences: false)
            if lines.count > 7, lines[7].trimmingCharacters(in: .whitespaces) == "ready", let pid = Int32(lines[0]) {
                ready = pid
                return true
            }
            return !process.isRunning
        }
        if let ready { return (process, ready) }
        ChildProcess.terminate(process, grace: .seconds(30))
        let log = (try? String(contentsOfFile: directory.appendingPathComponent("server.log").path, encoding: .utf8))
        throw ToolRun.Failure(description: "PostgreSQL did not start on port \(port): \(log?.suffix(2000) ?? "")")
    }

    // MARK: helpers

    /// The prefix that runs a command as the `postgres` user when this process is root (else none).
    private static func asPostgresUser() -> [String] {
        guard getuid() == 0 else { return [] }
        return ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--clear-groups", "--"]
    }

    /// Gives `path` to the `postgres` user when this process is root.
    private static func handOver(_ path: String) throws {
        guard getuid() == 0 else { return }
        guard let user = getpwnam("postgres") else {
            throw ToolRun.Failure(description: "running as root, but there is no postgres user")
        }
        guard chown(path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
            throw ToolRun.Failure(description: "chown \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Writes `text` to `name` in `directory` with mode 0600.
    private static func writePrivate(_ text: String, to name: String, in directory: URL) throws {
        try ToolRun.writePrivate(text, to: directory.appendingPathComponent(name).path)
    }

    /// `count` random bytes as hex.
    private static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }
            .joined()
    }

    /// A port on 127.0.0.1 that was free a moment ago.
    private static func freePort() throws -> UInt16 {
        let refusing = try RefusingPort()
        return refusing.port
    }

    /// Polls until process `pid` is gone (`kill(pid, 0)` fails), at most `limit`; true when it is.
    private static func awaitGone(_ pid: Int32, within limit: Duration) -> Bool {
        RealTime.pollBlocking(within: limit) { !(kill(pid, 0) == 0 || errno == EPERM) }
    }

    /// Runs a PostgreSQL tool (as the server's user when `asServerUser`) in `directory`, which that user can
    /// enter, output to files, bounded; its standard output.
    @discardableResult
    private static func runTool(
        _ tool: String, _ arguments: [String], in directory: URL, environment: [String: String] = [:],
        asServerUser: Bool = true
    ) throws -> String {
        let output = directory.appendingPathComponent("tool-\(UUID()).out")
        let errors = directory.appendingPathComponent("tool-\(UUID()).err")
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: errors)
        }
        for url in [output, errors] { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        let outputHandle = try FileHandle(forWritingTo: output)
        let errorHandle = try FileHandle(forWritingTo: errors)
        defer {
            try? outputHandle.close()
            try? errorHandle.close()
        }
        let process = Process()
        let command = (asServerUser ? asPostgresUser() : []) + [tool] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outputHandle
        process.standardError = errorHandle
        try ChildProcess.runBlocking(process)
        // initdb and psql take a second or two; the bound only ends a hang.
        guard ChildProcess.awaitExit(process, within: .seconds(30)) else {
            ChildProcess.terminate(process)
            throw ToolRun.Failure(description: "\(tool) did not finish within 30 s")
        }
        let stdout = String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self)
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let stderr = String(decoding: (try? Data(contentsOf: errors)) ?? Data(), as: UTF8.self)
            throw ToolRun.Failure(description: "\(tool) failed (status \(process.terminationStatus)): \(stderr)")
        }
        return stdout
    }
}
