import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import OTel
import ServiceLifecycle
import TransferdAPI
import TransferdDomain
import TransferdEngine
import TransferdServices

/// The composition root: configuration → store, services, router → an application ready to `runService()`.
///
/// Services start in order (store, HTTP client, scheduler, background task clock, webhook dispatcher, retention sweeper,
/// history pruner, upload aborter)
/// and the HTTP server last, so on shutdown the server stops taking requests first, then the others stop, the
/// client and the store's connections last.
func buildApplication(
    configuration: Configuration,
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    // A line says which request or work wrote it, and in which span when tracing is on.
    let spans = configuration.traceExport == nil ? [] : [OTel.makeLoggingMetadataProvider()]
    let metadata =
        Logger.MetadataProvider.multiplex([RequestLogScope.metadataProvider, LogContext.provider] + spans) ?? LogContext.provider
    var logger =
        switch configuration.logFormat {
        case .text: Logger(label: "transferd", metadataProvider: metadata)
        case .json: Logger(label: "transferd") { JSONLogHandler(label: $0, metadataProvider: metadata) }
        }
    logger.logLevel = configuration.logLevel
    guard !configuration.authenticationDisabled || configuration.bindsToLoopback else {
        throw ValidationFailure("--no-auth is only allowed with a loopback --host (127.0.0.1 or ::1), not \(configuration.host)")
    }
    if let invalid = configuration.destinationPolicy.invalidAllowances.first {
        throw ValidationFailure("--allow-destination takes CIDR blocks such as 10.1.0.0/16 or fd00::/8, not \(invalid)")
    }
    let components = try await Components(configuration: configuration, logger: logger)
    if !configuration.authenticationDisabled, let key = try await components.apiKeys.ensureInitialKey(configured: configuration.apiKey) {
        // Shown once, on the console, so that a fresh installation can be reached; README "Security" explains keys.
        FileHandle.standardError.write(
            Data(
                """
                transferd: no API key existed, so this admin key was created. It is shown only now:

                    \(key)

                Send it as `Authorization: Bearer <key>`; manage keys with `transferd keys` (README, "Security").

                """.utf8
            )
        )
    }
    var services: [any Service] = [
        components.store, components.httpClient, components.scheduler, components.leaseKeeper, components.backgroundTaskClock,
        components.fetchClock, components.bandwidthClock,
        components.dispatcher, components.notices, components.sweeper, components.historyPruner, components.uploadAborter,
        components.storageRecovery,
    ]
    if let metricsPort = configuration.metricsPort {
        let metrics = MetricsController(metrics: components.api.metrics, sampler: components.api.sampler)
        services.append(
            Application(
                router: metrics.router(),
                configuration: .init(address: .hostname(configuration.host, port: metricsPort), serverName: "transferd"),
                logger: logger
            )
        )
    }
    let limits = configuration.connections
    return Application(
        router: try buildRouter(components.api),
        server: .http1(
            configuration: .init(
                additionalChannelHandlers: [RequestHeadTimeout(timeout: .nanoseconds(Int64(limits.headerTimeout.timeInterval * 1e9)))],
                idleTimeout: .nanoseconds(Int64(limits.idleTimeout.timeInterval * 1e9))
            )
        ),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "transferd",
            availableConnectionsDelegate: MaximumAvailableConnections(limits.maximumConnections)
        ),
        services: services,
        onServerRunning: onServerRunning,
        logger: logger
    )
}
