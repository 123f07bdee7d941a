import Foundation
import Testing

/// The real `transferctl` binary (built beside the tests) run against a service: its exit status, and what it
/// printed on stdout and on stderr, apart.
struct TransferctlProcess {
    /// `.build/<triple>/debug/transferctl`, beside the test bundle.
    static let path = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "")
        .deletingLastPathComponent().appendingPathComponent("transferctl").path

    /// How a run ended.
    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    /// The environment that points transferctl at `api`: its address and key, and no terminal.
    static func environment(_ api: APIClient) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TRANSFERD_URL"] = api.baseURL
        environment["TRANSFERD_API_KEY"] = api.key ?? ""
        return environment
    }

    /// Runs `transferctl arguments…` to its end (at most `timeout`), without holding a thread while it runs.
    static func run(
        _ arguments: [String],
        environment: [String: String],
        timeout: Duration = .seconds(120)
    ) async throws -> Result {
        let process = try ChildProcess(executable: path, arguments: arguments, environment: environment, separateErrors: true)
        var (output, errors) = (Data(), Data())
        func drain() {
            output.append(ChildProcess.readAvailable(process.output))
            if let pipe = process.errors { errors.append(ChildProcess.readAvailable(pipe)) }
        }
        try await waitUntil(timeout: timeout) {
            drain()
            return !process.isRunning
        }
        drain()
        return Result(
            status: process.terminationStatus ?? -1,
            output: String(decoding: output, as: UTF8.self),
            errors: String(decoding: errors, as: UTF8.self)
        )
    }

    /// Runs `transferctl arguments…` against `api`.
    static func run(_ arguments: String..., api: APIClient, timeout: Duration = .seconds(120)) async throws -> Result {
        try await run(arguments, environment: environment(api), timeout: timeout)
    }
}
