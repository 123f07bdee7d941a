import AsyncHTTPClient
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import TransferdDomain

/// The HTTP clients transfers and webhooks use, behind the `DestinationGuard`; a service so that they shut down
/// after the scheduler and the dispatcher have stopped.
///
/// Decompression is off (bytes are stored as the origin sent them) and redirects are followed by the runner
/// itself, so that each hop can be checked and counted.
package struct HTTPClientService: Service {
    package let destinations: DestinationGuard

    /// `trustedCertificates`: a PEM file of CA certificates trusted besides the system's (`--ca-file`), for origins
    /// and subscribers behind a private CA. HTTP/2 is used with origins that offer it over TLS (ALPN). Refused
    /// destinations are told to `logger`.
    package init(connectTimeout: Duration, policy: DestinationPolicy, trustedCertificates: String? = nil, logger: Logger) {
        let nanoseconds = connectTimeout.components.seconds * 1_000_000_000 + connectTimeout.components.attoseconds / 1_000_000_000
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .nanoseconds(nanoseconds)),
            decompression: .disabled
        )
        if let trustedCertificates {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(trustedCertificates)]
            configuration.tlsConfiguration = tls
        }
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        destinations = DestinationGuard(policy: policy, configuration: configuration, logger: logger)
    }

    /// Shuts down the clients the guard retires while the service runs (a retired client's shutdown waits for the
    /// transfers still using it), then every client once the others have stopped.
    package func run() async throws {
        await withDiscardingTaskGroup { group in
            await withGracefulShutdownHandler {
                for await client in destinations.retired {
                    group.addTask { try? await client.shutdown() }
                }
            } onGracefulShutdown: {
                destinations.stopRetiring()
            }
        }
        try await destinations.shutdown()
    }
}
