import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOHTTP1
import ServiceLifecycle
import TransferdDomain

@testable import transferd

/// Runs the real transferd (the same `buildApplication` as production) on 127.0.0.1, port 0, for the duration of
/// `body`, then stops it with a graceful shutdown, as SIGTERM would.
enum TestService {
    /// The admin key every test service accepts (as `TRANSFERD_API_KEY` would provide it); `APIClient` sends it.
    static let apiKey = "trd_00000000000000aa_" + String(repeating: "ab", count: 32)

    /// The suite's origins and receivers run on loopback, which the service refuses by default: open it.
    static let loopback = DestinationPolicy(allowed: ["127.0.0.0/8", "::1/128"])

    /// Webhook retries in milliseconds rather than minutes, without jitter, so that tests run quickly and exactly.
    static let fastDeliveries = DeliveryPolicy(
        schedule: [0, 50, 100, 200, 400, 800, 1600, 3200].map { .milliseconds($0) },
        timeout: .seconds(5),
        jitter: 0
    )

    /// Two quick attempts per delivery, so that a refused delivery is dead-lettered at once.
    static let twoQuickDeliveryAttempts = DeliveryPolicy(
        schedule: [.zero, .milliseconds(10)],
        timeout: fastDeliveries.timeout,
        jitter: 0
    )

    static func with<T: Sendable>(
        dataDirectory: String = DataDirectories.temporary(),
        workerConcurrency: Int? = nil,
        progressInterval: Duration? = nil,
        deliveryPolicy: DeliveryPolicy? = nil,
        retryPolicy: RetryPolicy? = nil,
        maxBytesPerSecond: Int64? = nil,
        configure: (inout Configuration) -> Void = { _ in },
        _ body: (APIClient) async throws -> T
    ) async throws -> T {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        // What a test gives replaces the test services' defaults.
        var configuration = Self.configuration(dataDirectory: dataDirectory)
        if let workerConcurrency { configuration.workerConcurrency = workerConcurrency }
        if let progressInterval { configuration.progressInterval = progressInterval }
        if let deliveryPolicy { configuration.deliveryPolicy = deliveryPolicy }
        if let retryPolicy { configuration.retryPolicy = retryPolicy }
        if let maxBytesPerSecond { configuration.maxBytesPerSecond = maxBytesPerSecond }
        configure(&configuration)
        let app = try await buildApplication(configuration: configuration) { channel in
            portContinuation.yield(channel.localAddress?.port ?? 0)
        }
        let serviceGroup = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await serviceGroup.run() }
            var iterator = ports.makeAsyncIterator()
            let port = await iterator.next() ?? 0
            do {
                let result = try await body(APIClient(baseURL: "http://127.0.0.1:\(port)"))
                await serviceGroup.triggerGracefulShutdown()
                try await group.waitForAll()
                return result
            } catch {
                await serviceGroup.triggerGracefulShutdown()
                try? await group.waitForAll()
                throw error
            }
        }
    }

    /// Runs the real application with no socket: each request goes straight through its router (HummingbirdTesting's
    /// router mode), for tests of the API's answers that need no network.
    static func routed<T: Sendable>(_ body: @Sendable (APIClient) async throws -> T) async throws -> T {
        let app = try await buildApplication(configuration: configuration(dataDirectory: DataDirectories.temporary()))
        return try await app.test(.router) { client in
            try await body(
                APIClient(baseURL: "") { method, path, headers, body in
                    let response = try await client.execute(
                        uri: path,
                        method: HTTPRequest.Method(rawValue: method.rawValue) ?? .get,
                        headers: HTTPFields(headers.map { HTTPField(name: HTTPField.Name($0.name)!, value: $0.value) }),
                        body: body
                    )
                    return APIClient.Reply(
                        status: Int(response.status.code),
                        headers: HTTPHeaders(response.headers.map { ($0.name.rawName, $0.value) }),
                        body: Data(response.body.readableBytesView)
                    )
                }
            )
        }
    }

    /// The configuration of a test service on `dataDirectory`: loopback opened, quick retries and deliveries, no rate
    /// or disk limits in the way.
    static func configuration(dataDirectory: String) -> Configuration {
        Configuration(
            host: "127.0.0.1",
            port: 0,
            dataDirectory: dataDirectory,
            databaseURL: SuiteDatabase.url(forDataDirectory: dataDirectory),
            databaseConnections: 3,
            workerConcurrency: 16,
            progressInterval: .milliseconds(500),
            connectTimeout: .seconds(2),
            logLevel: .critical,
            deliveryPolicy: fastDeliveries,
            retryPolicy: RetryPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), jitter: 0),
            maxBytesPerSecond: nil,
            apiKey: apiKey,
            requestsPerSecond: 10_000,
            requestBurst: 10_000,
            destinationPolicy: loopback,
            limits: ResourceLimits(minimumFreeDiskBytes: 0)
        )
    }
}

extension OpenedStore {
    /// A fresh store on the suite's database (SQLite in a new data directory, or a new schema on PostgreSQL).
    static func onSuiteDatabase<T>(_ body: (any Store) async throws -> T) async throws -> T {
        let dataDirectory = DataDirectories.temporary()
        return try await with(dataDirectory: dataDirectory, databaseURL: SuiteDatabase.url(forDataDirectory: dataDirectory), body)
    }
}
