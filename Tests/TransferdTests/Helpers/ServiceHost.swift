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

    @Test(.enabled(if: ProcessInfo.processInfo.environment[dataDirectoryVariable] != nil, "runs only inside a ServiceProcess"))
    func serve() async throws {
        let dataDirectory = try #require(ProcessInfo.processInfo.environment[Self.dataDirectoryVariable])
        let instance = (ProcessInfo.processInfo.environment[Self.instanceVariable] ?? "transferd 15").split(separator: " ")
        let log = (ProcessInfo.processInfo.environment[Self.logVariable] ?? "text info").split(separator: " ").map(String.init)
        let app = try await buildApplication(
            configuration: Configuration(
                port: 0,
                dataDirectory: dataDirectory,
                databaseURL: TestService.databaseURL(forDataDirectory: dataDirectory),
                databaseConnections: 3,
                instance: Instance(id: String(instance[0]), leaseTimeout: instance.count > 1 ? Double(instance[1]) ?? 15 : 15),
                logLevel: Logger.Level(rawValue: log[1]) ?? .info,
                logFormat: LogFormat(rawValue: log[0]) ?? .text,
                apiKey: TestService.apiKey,
                requestsPerSecond: 10_000,
                requestBurst: 10_000,
                destinationPolicy: ProcessInfo.processInfo.environment[Self.allowedDestinationsVariable].map {
                    DestinationPolicy(allowed: $0.split(separator: " ").map(String.init))
                } ?? TestService.loopback,
                limits: ResourceLimits(minimumFreeDiskBytes: 0)
            )
        )
        try await app.runService()
    }
}
