import Foundation
import Logging
import TransferdDomain
import TransferdEngine
import TransferdServices

/// The service's configuration, as the options give it.
extension ServiceOptions {
    /// `host name:port`: what tells apart instances on different machines, or on one machine on different ports.
    private static func defaultInstanceID(port: Int) -> String {
        var name = [CChar](repeating: 0, count: 256)
        let host =
            gethostname(&name, name.count) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "transferd"
        let id = String(host.filter { Instance.isValid(id: String($0)) }.prefix(56)) + ":\(port)"
        return Instance.isValid(id: id) ? id : "transferd:\(port)"
    }

    /// The parsed `--webhook-retry-schedule`, or nil when it is not a list of non-negative numbers.
    var retrySchedule: [Duration]? {
        let waits = webhookRetrySchedule.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard !waits.isEmpty, waits.count == webhookRetrySchedule.split(separator: ",").count, waits.allSatisfy({ $0 >= 0 }) else {
            return nil
        }
        return waits.map { .milliseconds(Int64($0 * 1000)) }
    }

    /// The parsed `--content-store`, with its access key from the environment; nil without one.
    var contentStoreSettings: ContentStoreSettings? {
        get throws {
            guard !contentStore.isEmpty else { return nil }
            let (keyID, secret) = (
                Self.environment["TRANSFERD_CONTENT_STORE_ACCESS_KEY_ID"] ?? "",
                Self.environment["TRANSFERD_CONTENT_STORE_SECRET_ACCESS_KEY"] ?? ""
            )
            guard !keyID.isEmpty, !secret.isEmpty else {
                throw DomainError.badRequest(
                    "--content-store needs TRANSFERD_CONTENT_STORE_ACCESS_KEY_ID and TRANSFERD_CONTENT_STORE_SECRET_ACCESS_KEY in the environment."
                )
            }
            return try ContentStoreSettings(uri: contentStore, accessKeyId: keyID, secretAccessKey: secret)
        }
    }

    var configuration: Configuration {
        var configuration = Configuration(
            host: host,
            metricsPort: metricsPort ?? Self.environment["TRANSFERD_METRICS_PORT"].flatMap { Int($0) },
            port: port,
            dataDirectory: dataDir,
            databaseURL: databaseURL.isEmpty ? nil : databaseURL,
            databaseConnections: databaseConnections,
            instance: Instance(id: instanceID.isEmpty ? Self.defaultInstanceID(port: port) : instanceID, leaseTimeout: leaseTimeout),
            workerConcurrency: workerConcurrency,
            maximumTransfersPerTenant: maxTransfersPerTenant > 0 ? maxTransfersPerTenant : nil,
            maximumRequestTimeout: .milliseconds(Int64(maxRequestTimeout * 1000)),
            minimumTransferRate: minTransferRate > 0
                ? TransferBounds.MinimumRate(bytesPerSecond: minTransferRate, window: .milliseconds(Int64(stallTimeout * 1000))) : nil,
            webhookConcurrency: webhookConcurrency,
            logLevel: Logger.Level(rawValue: logLevel) ?? .info,
            logFormat: LogFormat(rawValue: logFormat) ?? .text,
            deliveryPolicy: DeliveryPolicy(
                schedule: retrySchedule ?? DeliveryPolicy.svixSchedule,
                timeout: .milliseconds(Int64(webhookTimeout * 1000)),
                probeInterval: .milliseconds(Int64(webhookProbeInterval * 1000)),
                maximumProbeInterval: .milliseconds(Int64(webhookProbeMaxInterval * 1000)),
                disableAfter: .milliseconds(Int64(webhookDisableAfter * 1000))
            ),
            retryPolicy: RetryPolicy(
                initialDelay: .milliseconds(Int64(retryInitialDelay * 1000)),
                maximumDelay: .milliseconds(Int64(retryMaximumDelay * 1000))
            ),
            maxBytesPerSecond: maxBytesPerSecond > 0 ? maxBytesPerSecond : nil,
            bandwidthSchedule: bandwidthSchedule.isEmpty ? nil : try? BandwidthSchedule(bandwidthSchedule),
            discretionaryWindow: DailyWindow(discretionaryWindow),
            credentialsKey: CredentialsKey.configured,
            trustedCertificates: caFile.isEmpty ? nil : caFile,
            stagedFileLimits: StagedFileLimits(
                maximumSize: maxUploadSize,
                uploadExpiration: .milliseconds(Int64(uploadExpiration * 1000)),
                retention: .milliseconds(Int64(fileRetention * 1000))
            ),
            replyBodyLimit: responseBodyLimit,
            apiKey: Self.environment["TRANSFERD_API_KEY"],
            authenticationDisabled: noAuth,
            requestsPerSecond: rateLimit,
            requestBurst: rateLimit * 4,
            destinationPolicy: DestinationPolicy(allowed: allowDestination, allowPrivate: allowPrivateDestinations),
            limits: ResourceLimits(
                maximumSessionsPerTenant: maxSessionsPerTenant,
                maximumTasksPerSession: maxTasksPerSession,
                maximumFetchesPerSession: maxFetchesPerSession,
                maximumFetchesPerTenant: maxFetchesPerTenant,
                maximumQueuedTasksPerTenant: maxQueuedTasksPerTenant,
                maximumStoredBytesPerTenant: maxStoredBytesPerTenant > 0 ? maxStoredBytesPerTenant : nil,
                maximumDownloadBytes: maxDownloadSize,
                minimumFreeDiskBytes: minFreeDisk
            ),
            maximumBackgroundTaskDuration: maxBackgroundTaskDuration,
            maximumStreamsPerKey: maxStreamsPerKey,
            connections: ConnectionLimits(
                headerTimeout: .milliseconds(Int64(headerTimeout * 1000)),
                idleTimeout: .milliseconds(Int64(idleTimeout * 1000)),
                maximumConnections: maxConnections
            )
        )
        configuration.opsWebhook = WebhookSecret(opsWebhookSecret).map { OpsWebhook(url: opsWebhook, secret: $0) }
        configuration.contentStore = try? contentStoreSettings
        configuration.sweepInterval = .milliseconds(Int64(sweepInterval * 1000))
        configuration.historyRetention = HistoryRetention(defaultPeriod: historyRetention)
        configuration.traceExport = TraceExport.configured(
            endpoint: otlpEndpoint,
            sampleRatio: traceSampleRatio,
            environment: Self.environment
        )
        return configuration
    }
}
