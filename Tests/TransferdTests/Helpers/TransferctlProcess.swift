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
        let (output, errors) = (ServiceProcess.OutputBuffer(), ServiceProcess.OutputBuffer())
        process.output.readabilityHandler = { output.append($0.availableData) }
        process.errors?.readabilityHandler = { errors.append($0.availableData) }
        try await waitUntil(timeout: timeout) { !process.isRunning }
        process.output.readabilityHandler = nil
        process.errors?.readabilityHandler = nil
        output.append(process.output.readDataToEndOfFile())
        errors.append(process.errors?.readDataToEndOfFile() ?? Data())
        return Result(status: process.terminationStatus ?? -1, output: output.contents, errors: errors.contents)
    }

    /// Runs `transferctl arguments…` against `api`.
    static func run(_ arguments: String..., api: APIClient, timeout: Duration = .seconds(120)) async throws -> Result {
        try await run(arguments, environment: environment(api), timeout: timeout)
    }
}
