import Foundation
import Testing

/// A PostgreSQL server of one test's own, from Debian's binaries, on a loopback port, that the test may stop and
/// start again: for faults the server the whole suite shares must not suffer. As root it runs as the unprivileged
/// `postgres` user (PostgreSQL refuses root), as `.ci/run` starts the shared one.
final class PostgresCluster: Sendable {
    /// The newest installed server's binaries (`/usr/lib/postgresql/<version>/bin`), if any.
    static let binaries: String? = {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap(Int.init).max().map { "\(root)/\($0)/bin" }
    }()

    let directory: String
    let port: Int
    private let binaries: String

    /// A database URL of the cluster's `transferd` database.
    var url: String { "postgres://postgres@127.0.0.1:\(port)/transferd?sslmode=disable" }

    private init(directory: String, port: Int, binaries: String) {
        self.directory = directory
        self.port = port
        self.binaries = binaries
    }

    /// Creates a cluster in a new directory, starts it and creates its `transferd` database.
    private static func start() async throws -> PostgresCluster {
        let binaries = try #require(Self.binaries, "PostgreSQL's binaries are not installed")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("transferd-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if getuid() == 0, let user = getpwnam("postgres") {
            chown(directory, user.pointee.pw_uid, user.pointee.pw_gid)
        }
        let reserved = try ReservedPort()
        reserved.release()
        let cluster = PostgresCluster(directory: directory, port: reserved.port, binaries: binaries)
        try await cluster.run("initdb", ["-D", "\(directory)/data", "-U", "postgres", "--auth=trust"])
        try await cluster.start()
        try await cluster.run("createdb", ["-h", "127.0.0.1", "-p", "\(cluster.port)", "-U", "postgres", "transferd"])
        return cluster
    }

    /// Runs `body` with a cluster of its own, which is stopped and removed afterwards, whether `body` threw or not.
    static func with<T>(_ body: (PostgresCluster) async throws -> T) async throws -> T {
        let cluster = try await start()
        do {
            let result = try await body(cluster)
            await cluster.destroy()
            return result
        } catch {
            await cluster.destroy()
            throw error
        }
    }

    /// Starts the server and returns once it accepts connections.
    func start() async throws {
        let options = "-h 127.0.0.1 -p \(port) -k \(directory) -c max_connections=100"
        try await run("pg_ctl", ["-D", "\(directory)/data", "-l", "\(directory)/log", "-o", options, "-w", "start"])
    }

    /// Stops the server at once, as a crash or a failover would: every connection drops, and what was committed
    /// comes back from the write-ahead log at the next start.
    func stop() async throws {
        try await run("pg_ctl", ["-D", "\(directory)/data", "-m", "immediate", "-w", "stop"])
    }

    /// Stops the server and removes its files.
    func destroy() async {
        try? await stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs one of the server's programs as its user and waits for it; fails the test with its output when it fails.
    private func run(_ program: String, _ arguments: [String]) async throws {
        let (executable, argv) =
            getuid() == 0
            ? ("/usr/sbin/runuser", ["-u", "postgres", "--", "\(binaries)/\(program)"] + arguments) : ("\(binaries)/\(program)", arguments)
        let process = try ChildProcess(executable: executable, arguments: argv)
        let output = ProcessOutput()
        let gathering = process.gather(into: output)
        try await waitUntil(timeout: .seconds(60)) { !process.isRunning }
        await gathering.value
        try #require(process.terminationStatus == 0, "\(program) failed: \(output.contents)")
    }
}
