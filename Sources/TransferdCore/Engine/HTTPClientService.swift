import AsyncHTTPClient
import NIOCore
import ServiceLifecycle

/// The HTTP clients transfers and webhooks use, behind the `DestinationGuard`; a service so that they shut down
/// after the scheduler and the dispatcher have stopped.
///
/// Decompression is off (bytes are stored as the origin sent them) and redirects are followed by the runner
/// itself, so that each hop can be checked and counted.
struct HTTPClientService: Service {
    let destinations: DestinationGuard

    init(connectTimeout: Duration, policy: DestinationPolicy) {
        let nanoseconds = connectTimeout.components.seconds * 1_000_000_000 + connectTimeout.components.attoseconds / 1_000_000_000
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .nanoseconds(nanoseconds)),
            decompression: .disabled
        )
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        destinations = DestinationGuard(policy: policy, configuration: configuration)
    }

    func run() async throws {
        try? await gracefulShutdown()
        try await destinations.shutdown()
    }
}
