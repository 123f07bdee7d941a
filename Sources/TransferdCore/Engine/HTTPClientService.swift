import AsyncHTTPClient
import NIOCore
import ServiceLifecycle

/// The one HTTP client transfers use, run as a service so that it shuts down after the scheduler has stopped.
///
/// Decompression is off (bytes are stored as the origin sent them) and redirects are followed by the runner
/// itself, so that each hop can be checked and counted.
struct HTTPClientService: Service {
    let client: HTTPClient

    init(connectTimeout: Duration) {
        let nanoseconds = connectTimeout.components.seconds * 1_000_000_000 + connectTimeout.components.attoseconds / 1_000_000_000
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .nanoseconds(nanoseconds)),
            decompression: .disabled
        )
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func run() async throws {
        try? await gracefulShutdown()
        try await client.shutdown()
    }
}
