import Foundation
import Logging
import Testing
import TransferdDomain

@testable import transferd

/// The body of a `ServiceProcess`: the test binary re-runs itself with only this test enabled, and it serves
/// transferd (the production composition root) until SIGTERM. In an ordinary test run it is skipped.
///
/// Re-running the test binary, rather than the `transferd` executable, keeps `swift test` self-sufficient
/// (it does not link executables) and always runs the code under test.
@Suite struct ServiceHost {
    static let dataDirectoryVariable = "TRANSFERD_TEST_SERVICE_HOST_DATA_DIR"
    /// `id` or `id lease-timeout`: the instance to serve as, when several share a database.
    static let instanceVariable = "TRANSFERD_TEST_SERVICE_HOST_INSTANCE"
    /// `format level`: how to log (`text info` when unset).
    static let logVariable = "TRANSFERD_TEST_SERVICE_HOST_LOG"
    /// Space-separated CIDR blocks the service may reach, instead of loopback.
    static let allowedDestinationsVariable = "TRANSFERD_TEST_SERVICE_HOST_ALLOW"
    /// Space-separated command-line options, after those the host gives (a later option wins).
    static let argumentsVariable = "TRANSFERD_TEST_SERVICE_HOST_ARGUMENTS"

    /// Serves with the options the command line would give: the host's (the data directory and its database, the
    /// instance, the log, loopback destinations, no disk floor, no rate limit to speak of), then the test's own; the
    /// API key comes from `TRANSFERD_API_KEY`, which `ServiceProcess` sets.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[dataDirectoryVariable] != nil, "runs only inside a ServiceProcess"))
    func serve() async throws {
        let environment = ProcessInfo.processInfo.environment
        let dataDirectory = try #require(environment[Self.dataDirectoryVariable])
        let instance = (environment[Self.instanceVariable] ?? "transferd 15").split(separator: " ").map(String.init)
        let log = (environment[Self.logVariable] ?? "text info").split(separator: " ").map(String.init)
        let allowed = environment[Self.allowedDestinationsVariable]?.split(separator: " ").map(String.init) ?? ["127.0.0.0/8", "::1/128"]
        var arguments = [
            "--port", "0", "--data-dir", dataDirectory, "--database-connections", "3", "--instance-id", instance[0],
            "--lease-timeout", instance.count > 1 ? instance[1] : "15", "--log-format", log[0], "--log-level", log[1],
            "--rate-limit", "10000", "--min-free-disk", "0",
        ]
        if let url = SuiteDatabase.url(forDataDirectory: dataDirectory) { arguments += ["--database-url", url] }
        arguments += allowed.flatMap { ["--allow-destination", $0] }
        arguments += environment[Self.argumentsVariable]?.split(separator: " ").map(String.init) ?? []
        Self.endWithTheTestProcess()
        try await ServeCommand.serve(try ServiceOptions.parse(arguments))
    }

    /// Stops the service (SIGTERM, as the test would) once the test process that started it is gone: a test process
    /// that crashed or was killed left its services running for as long as the machine did, holding their databases'
    /// connections and slowing every run after it.
    private static func endWithTheTestProcess() {
        let parent = getppid()
        Task.detached {
            while getppid() == parent { try? await Task.sleep(for: .seconds(1)) }
            kill(getpid(), SIGTERM)
        }
    }
}
