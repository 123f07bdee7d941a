import Foundation
import Synchronization
import Testing

/// transferd in a child process of its own (see `ServiceHost`), on 127.0.0.1 with a port of its choosing:
/// for measurements that must not be mixed with the test process, and for stops no in-process service can make.
final class ServiceProcess: Sendable {
    let process: ChildProcess
    let port: Int
    private let output: ProcessOutput
    /// Reads the process's output into `output` until it has exited.
    private let gathering: Task<Void, Never>

    var pid: Int32 { process.pid }
    var api: APIClient { APIClient(baseURL: "http://127.0.0.1:\(port)") }

    private init(process: ChildProcess, port: Int, output: ProcessOutput, gathering: Task<Void, Never>) {
        self.process = process
        self.port = port
        self.output = output
        self.gathering = gathering
    }

    /// Starts transferd on `dataDirectory` and returns once it listens; `instance` names it among others sharing its
    /// database, with its lease timeout in seconds. `allowedDestinations` replaces the loopback ranges the service
    /// may reach; `nameserver` is the only DNS server it asks (the process gets a mount namespace of its own, whose
    /// `/etc/resolv.conf` names it: this needs root, as CI and the developers' machines have). With `filesystemMiB`,
    /// the data directory is a file system of that size of the process's own (a tmpfs in its mount namespace, which
    /// starts with what the directory held; the test reaches it through `visiblePath`). `arguments` are command-line
    /// options besides those (`--webhook-concurrency 2`); `environment`, variables besides the test process's.
    static func start(
        dataDirectory: String,
        instance: (id: String, leaseTimeout: Int)? = nil,
        log: (format: String, level: String)? = nil,
        allowedDestinations: [String]? = nil,
        nameserver: String? = nil,
        filesystemMiB: Int? = nil,
        arguments: [String] = [],
        environment: [String: String] = [:]
    ) async throws -> ServiceProcess {
        var variables = environment.merging([
            ServiceHost.dataDirectoryVariable: dataDirectory, "TRANSFERD_API_KEY": TestService.apiKey,
            ServiceHost.argumentsVariable: arguments.joined(separator: " "),
        ]) { $1 }
        if let instance { variables[ServiceHost.instanceVariable] = "\(instance.id) \(instance.leaseTimeout)" }
        if let log { variables[ServiceHost.logVariable] = "\(log.format) \(log.level)" }
        if let allowedDestinations { variables[ServiceHost.allowedDestinationsVariable] = allowedDestinations.joined(separator: " ") }
        var command = [
            try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), "--testing-library", "swift-testing", "--filter",
            "ServiceHost",
        ]
        // Mounts made in a namespace of the process's own, then the service: `sh -c SCRIPT sh ARGUMENTS… COMMAND…`.
        var mounts: [(script: String, arguments: [String])] = []
        if let nameserver {
            let resolvConf = dataDirectory + "/resolv.conf"
            try "nameserver \(nameserver)\noptions timeout:2 attempts:2\n".write(toFile: resolvConf, atomically: true, encoding: .utf8)
            mounts.append((#"mount --bind "$1" /etc/resolv.conf && shift"#, [resolvConf]))
        }
        if let filesystemMiB {
            mounts.append(
                (
                    #"seed=$(mktemp -d) && cp -a "$1/." "$seed/" && mount -t tmpfs -o "size=$2m,mode=0700" tmpfs "$1" && cp -a "$seed/." "$1/" && rm -rf "$seed" && shift 2"#,
                    [dataDirectory, String(filesystemMiB)]
                )
            )
        }
        if !mounts.isEmpty {
            let script = (mounts.map(\.script) + [#"exec "$@""#]).joined(separator: " && ")
            command = ["/usr/bin/unshare", "-m", "sh", "-c", script, "sh"] + mounts.flatMap(\.arguments) + command
        }
        let process = try ChildProcess(
            executable: command[0],
            arguments: Array(command.dropFirst()),
            environment: ProcessInfo.processInfo.environment.merging(variables) { $1 }
        )
        let output = ProcessOutput()
        let gathering = process.gather(into: output)
        var port = 0
        // A deadline, not a wait: on a loaded machine a child that opens PostgreSQL may need more than a few seconds.
        do {
            try await waitUntil(timeout: .seconds(90)) {
                let log = output.contents
                guard let range = log.range(of: "listening on 127.0.0.1:") else { return !process.isRunning }
                port = Int(log[range.upperBound...].prefix { $0.isNumber }) ?? 0
                return true
            }
        } catch {
            Issue.record("transferd did not start within 90 s: \(output.contents)")
            throw error
        }
        try #require(port > 0, "transferd did not start: \(output.contents)")
        return ServiceProcess(process: process, port: port, output: output, gathering: gathering)
    }

    /// A path of the process's mount namespace as the test reaches it (through `/proc/<pid>/root`): where its own
    /// file system is, when it has one.
    func visiblePath(_ path: String) -> String {
        "/proc/\(pid)/root\(path)"
    }

    /// Resident memory of the process now, in bytes.
    var residentBytes: Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    /// SIGTERM, then waits for the process to exit; returns its exit status.
    @discardableResult
    func terminate() async throws -> Int32 {
        process.send(SIGTERM)
        try await waitUntil(timeout: .seconds(30)) { !self.process.isRunning }
        // The last lines may still sit in the pipe: the log is read to its end.
        await gathering.value
        return process.terminationStatus ?? -1
    }

    /// SIGTERM without waiting, when the process still runs: for `defer`, so that a failed test leaves no process.
    func stopIfRunning() {
        process.send(SIGTERM)
    }

    /// SIGKILL: the process dies at once, as in a crash or an OOM kill; returns once it is gone.
    func kill() async throws {
        process.send(SIGKILL)
        try await waitUntil(timeout: .seconds(30)) { !self.process.isRunning }
    }

    var log: String { output.contents }
}
