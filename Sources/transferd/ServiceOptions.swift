import ArgumentParser
import Foundation
import Logging
import TransferdDomain
import TransferdEngine
import TransferdServices

/// Options shared by the subcommands; each falls back to a `TRANSFERD_*` environment variable, then a default.
struct ServiceOptions: ParsableArguments {
    static let environment = ProcessInfo.processInfo.environment

    @Option(help: "Address to bind the HTTP API to (env TRANSFERD_HOST).")
    var host: String = environment["TRANSFERD_HOST"] ?? "127.0.0.1"

    @Option(help: "Port of the HTTP API; 0 picks a free port (env TRANSFERD_PORT).")
    var port: Int = environment["TRANSFERD_PORT"].flatMap { Int($0) } ?? 8080

    @Option(help: "Directory for the SQLite database and transferred files, created if missing (env TRANSFERD_DATA_DIR).")
    var dataDir: String = environment["TRANSFERD_DATA_DIR"] ?? "./transferd-data"

    @Option(
        help: """
            A PostgreSQL database (postgres://user:password@host:port/database[?schema=…&sslmode=disable|prefer|require]) \
            to keep state in instead of SQLite in the data directory; instances over one database share the data \
            directory (env TRANSFERD_DATABASE_URL).
            """
    )
    var databaseURL: String = environment["TRANSFERD_DATABASE_URL"] ?? ""

    @Option(help: "How many connections to PostgreSQL this instance opens at most (env TRANSFERD_DATABASE_CONNECTIONS).")
    var databaseConnections: Int = environment["TRANSFERD_DATABASE_CONNECTIONS"].flatMap { Int($0) } ?? 16

    @Option(
        help: """
            This instance's id among those sharing a database, unique among those running: letters, digits, '.', ':', \
            '_', '-' (env TRANSFERD_INSTANCE_ID; default: host name:port). An instance that starts again under its id \
            takes back its transfers at once.
            """
    )
    var instanceID: String = environment["TRANSFERD_INSTANCE_ID"] ?? ""

    @Option(
        help: """
            Seconds an instance's lease on a transfer or on a session's webhook deliveries holds unless renewed: how long \
            the work of an instance that died waits before another continues it (env TRANSFERD_LEASE_TIMEOUT).
            """
    )
    var leaseTimeout: Double = environment["TRANSFERD_LEASE_TIMEOUT"].flatMap { Double($0) } ?? 15

    @Option(help: "How many transfers may run at once across all sessions (env TRANSFERD_WORKER_CONCURRENCY).")
    var workerConcurrency: Int = environment["TRANSFERD_WORKER_CONCURRENCY"].flatMap { Int($0) } ?? 16

    @Option(
        help: """
            The most transfers one tenant runs while another tenant has work; 0 for half of --worker-concurrency \
            (env TRANSFERD_MAX_TRANSFERS_PER_TENANT).
            """
    )
    var maxTransfersPerTenant: Int = environment["TRANSFERD_MAX_TRANSFERS_PER_TENANT"].flatMap { Int($0) } ?? 0

    @Option(
        help: """
            The longest timeoutIntervalForRequest a session gets, in seconds: a transfer that moves no byte for it \
            gives its worker back (env TRANSFERD_MAX_REQUEST_TIMEOUT).
            """
    )
    var maxRequestTimeout: Double = environment["TRANSFERD_MAX_REQUEST_TIMEOUT"].flatMap { Double($0) } ?? 600

    @Option(
        help: """
            Bytes a second below which a transfer, measured over --stall-timeout, is failed as timedOut and retried \
            later, giving its worker back; 0 for no floor (env TRANSFERD_MIN_TRANSFER_RATE).
            """
    )
    var minTransferRate: Int64 = environment["TRANSFERD_MIN_TRANSFER_RATE"].flatMap { Int64($0) } ?? 0

    @Option(help: "Seconds over which --min-transfer-rate is measured (env TRANSFERD_STALL_TIMEOUT).")
    var stallTimeout: Double = environment["TRANSFERD_STALL_TIMEOUT"].flatMap { Double($0) } ?? 60

    @Option(help: "trace, debug, info, notice, warning, error or critical (env TRANSFERD_LOG_LEVEL).")
    var logLevel: String = environment["TRANSFERD_LOG_LEVEL"] ?? "info"

    @Option(help: "text (for people) or json (one object a line, for log collectors) (env TRANSFERD_LOG_FORMAT).")
    var logFormat: String = environment["TRANSFERD_LOG_FORMAT"] ?? "text"

    @Option(
        help: "Seconds before the first retry of a transiently failed transfer; it doubles each time (env TRANSFERD_RETRY_INITIAL_DELAY)."
    )
    var retryInitialDelay: Double = environment["TRANSFERD_RETRY_INITIAL_DELAY"].flatMap { Double($0) } ?? 1

    @Option(help: "Longest wait between two attempts of a transfer, in seconds (env TRANSFERD_RETRY_MAXIMUM_DELAY).")
    var retryMaximumDelay: Double = environment["TRANSFERD_RETRY_MAXIMUM_DELAY"].flatMap { Double($0) } ?? 300

    @Option(
        help: """
            How many sessions' webhook subscribers are sent deliveries at once, each one at a time, shared fairly across \
            tenants (env TRANSFERD_WEBHOOK_CONCURRENCY).
            """
    )
    var webhookConcurrency: Int = environment["TRANSFERD_WEBHOOK_CONCURRENCY"].flatMap { Int($0) } ?? 64

    @Option(help: "Seconds a webhook subscriber has to answer one delivery, body included (env TRANSFERD_WEBHOOK_TIMEOUT).")
    var webhookTimeout: Double = environment["TRANSFERD_WEBHOOK_TIMEOUT"].flatMap { Double($0) } ?? 15

    @Option(
        help:
            "Comma-separated seconds to wait before each webhook attempt; as many attempts as waits (env TRANSFERD_WEBHOOK_RETRY_SCHEDULE)."
    )
    var webhookRetrySchedule: String = environment["TRANSFERD_WEBHOOK_RETRY_SCHEDULE"] ?? "0,5,300,1800,7200,18000,36000,36000"

    @Option(help: "A URL told (POST, signed) when a webhook endpoint is disabled (env TRANSFERD_OPS_WEBHOOK).")
    var opsWebhook: String = environment["TRANSFERD_OPS_WEBHOOK"] ?? ""

    @Option(help: "The whsec_ secret that signs what --ops-webhook is sent (env TRANSFERD_OPS_WEBHOOK_SECRET).")
    var opsWebhookSecret: String = environment["TRANSFERD_OPS_WEBHOOK_SECRET"] ?? ""

    @Option(
        help: """
            s3://bucket/prefix?endpoint=https://host:port&region=…&pathStyle=true: keep downloads' content and uploads' \
            replies in this bucket instead of the data directory, so that instances share no disk; the access key comes \
            from TRANSFERD_CONTENT_STORE_ACCESS_KEY_ID and TRANSFERD_CONTENT_STORE_SECRET_ACCESS_KEY (env TRANSFERD_CONTENT_STORE).
            """
    )
    var contentStore: String = environment["TRANSFERD_CONTENT_STORE"] ?? ""

    @Option(help: "Seconds a webhook endpoint may fail without a break before it is disabled (env TRANSFERD_WEBHOOK_DISABLE_AFTER).")
    var webhookDisableAfter: Double = environment["TRANSFERD_WEBHOOK_DISABLE_AFTER"].flatMap { Double($0) } ?? 432_000

    @Option(
        help: """
            Longest wait, in seconds, between probes of a failing webhook endpoint in the first hour of its outage: how \
            soon a subscriber that is back is caught up (env TRANSFERD_WEBHOOK_PROBE_INTERVAL).
            """
    )
    var webhookProbeInterval: Double = environment["TRANSFERD_WEBHOOK_PROBE_INTERVAL"].flatMap { Double($0) } ?? 10

    @Option(
        help:
            "Longest wait, in seconds, between probes of a failing webhook endpoint after that hour (env TRANSFERD_WEBHOOK_PROBE_MAX_INTERVAL)."
    )
    var webhookProbeMaxInterval: Double = environment["TRANSFERD_WEBHOOK_PROBE_MAX_INTERVAL"].flatMap { Double($0) } ?? 60

    @Option(help: "Bandwidth all downloads share, in bytes per second; 0 for no limit (env TRANSFERD_MAX_BYTES_PER_SECOND).")
    var maxBytesPerSecond: Int64 = environment["TRANSFERD_MAX_BYTES_PER_SECOND"].flatMap { Int64($0) } ?? 0

    @Option(
        help:
            "Bandwidth all transfers share by time of day, in local time, as `mon-fri 08:00-18:00=10M, *=off` (docs/bandwidth.md); with --max-bytes-per-second, the lower applies; its `off` periods are discretionary sessions' off-peak (env TRANSFERD_BANDWIDTH_SCHEDULE)."
    )
    var bandwidthSchedule: String = environment["TRANSFERD_BANDWIDTH_SCHEDULE"] ?? ""

    @Option(
        help:
            "When discretionary sessions' transfers run, HH:MM-HH:MM in local time (may wrap past midnight); outside it they run only while nothing else waits (env TRANSFERD_DISCRETIONARY_WINDOW)."
    )
    var discretionaryWindow: String = environment["TRANSFERD_DISCRETIONARY_WINDOW"] ?? ""

    @Option(help: "A PEM file of CA certificates trusted besides the system's, for origins behind a private CA (env TRANSFERD_CA_FILE).")
    var caFile: String = environment["TRANSFERD_CA_FILE"] ?? ""

    @Option(help: "Largest file /v1/files accepts, in bytes (Tus-Max-Size) (env TRANSFERD_MAX_UPLOAD_SIZE).")
    var maxUploadSize: Int64 = environment["TRANSFERD_MAX_UPLOAD_SIZE"].flatMap { Int64($0) } ?? 100 << 30

    @Option(help: "Seconds an unfinished upload to /v1/files may stay unfinished (env TRANSFERD_UPLOAD_EXPIRATION).")
    var uploadExpiration: Double = environment["TRANSFERD_UPLOAD_EXPIRATION"].flatMap { Double($0) } ?? 86_400

    @Option(help: "Seconds a complete file in /v1/files is kept (env TRANSFERD_FILE_RETENTION).")
    var fileRetention: Double = environment["TRANSFERD_FILE_RETENTION"].flatMap { Double($0) } ?? 7 * 86_400

    @Option(
        help: """
            Seconds a session's history (finished tasks, events and their webhook deliveries, ended background tasks) is \
            kept after it is over, for sessions that set no historyRetention; the longer of it and the session's \
            retentionPeriod applies (env TRANSFERD_HISTORY_RETENTION).
            """
    )
    var historyRetention: Double = environment["TRANSFERD_HISTORY_RETENTION"].flatMap { Double($0) } ?? 30 * 86_400

    @Option(help: "Most bytes of an upload's reply body kept for the client (env TRANSFERD_RESPONSE_BODY_LIMIT).")
    var responseBodyLimit: Int = environment["TRANSFERD_RESPONSE_BODY_LIMIT"].flatMap { Int($0) } ?? 1 << 20

    @Flag(help: "Serve without API keys, for local development; only with a loopback --host.")
    var noAuth = false

    @Option(help: "Requests a second each API key may send on average (env TRANSFERD_RATE_LIMIT).")
    var rateLimit: Double = environment["TRANSFERD_RATE_LIMIT"].flatMap { Double($0) } ?? 1000

    @Option(
        help:
            "A CIDR block transfers and webhooks may reach although it is not public; repeatable (env TRANSFERD_ALLOW_DESTINATIONS, comma-separated)."
    )
    var allowDestination: [String] = environment["TRANSFERD_ALLOW_DESTINATIONS"]?.split(separator: ",").map(String.init) ?? []

    @Flag(help: "Let transfers and webhooks reach every private address (a trusted network) (env TRANSFERD_ALLOW_PRIVATE_DESTINATIONS=1).")
    var allowPrivateDestinations = environment["TRANSFERD_ALLOW_PRIVATE_DESTINATIONS"] == "1"

    @Option(help: "Live sessions one tenant may have (env TRANSFERD_MAX_SESSIONS_PER_TENANT).")
    var maxSessionsPerTenant: Int = environment["TRANSFERD_MAX_SESSIONS_PER_TENANT"].flatMap { Int($0) } ?? 1000

    @Option(
        help: """
            A port that serves /metrics alone, without an API key, for a network only the monitoring reaches \
            (env TRANSFERD_METRICS_PORT); without it, /metrics is on the API's port for admin keys.
            """
    )
    var metricsPort: Int?

    @Option(
        help: """
            The OTLP/HTTP endpoint that traces are exported to, such as http://collector:4318 (env \
            OTEL_EXPORTER_OTLP_ENDPOINT, or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT for the full URL); without one, tracing is off.
            """
    )
    var otlpEndpoint: String = ""

    @Option(
        help: """
            The share of new traces recorded, from 0 to 1; a request's own traceparent decides for its trace \
            (env OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG).
            """
    )
    var traceSampleRatio: Double = 1

    @Option(
        help: "Seconds a request's headers may take to arrive in full after their first byte (env TRANSFERD_HEADER_TIMEOUT)."
    )
    var headerTimeout: Double = environment["TRANSFERD_HEADER_TIMEOUT"].flatMap { Double($0) } ?? 10

    @Option(
        help: """
            Seconds a connection stays open without a byte, between requests or while a body stalls \
            (env TRANSFERD_IDLE_TIMEOUT).
            """
    )
    var idleTimeout: Double = environment["TRANSFERD_IDLE_TIMEOUT"].flatMap { Double($0) } ?? 60

    @Option(help: "Connections the API serves at once; more wait to be accepted (env TRANSFERD_MAX_CONNECTIONS).")
    var maxConnections: Int = environment["TRANSFERD_MAX_CONNECTIONS"].flatMap { Int($0) } ?? 4096

    @Option(help: "Event streams one API key may hold open on this instance at once (env TRANSFERD_MAX_STREAMS_PER_KEY).")
    var maxStreamsPerKey: Int = environment["TRANSFERD_MAX_STREAMS_PER_KEY"].flatMap { Int($0) } ?? 16

    @Option(help: "Tasks one session may have (env TRANSFERD_MAX_TASKS_PER_SESSION).")
    var maxTasksPerSession: Int = environment["TRANSFERD_MAX_TASKS_PER_SESSION"].flatMap { Int($0) } ?? 100_000

    @Option(help: "Fetch schedules one session may have (env TRANSFERD_MAX_FETCHES_PER_SESSION).")
    var maxFetchesPerSession: Int = environment["TRANSFERD_MAX_FETCHES_PER_SESSION"].flatMap { Int($0) } ?? 100

    @Option(help: "Fetch schedules one tenant may have across its sessions (env TRANSFERD_MAX_FETCHES_PER_TENANT).")
    var maxFetchesPerTenant: Int = environment["TRANSFERD_MAX_FETCHES_PER_TENANT"].flatMap { Int($0) } ?? 1000

    @Option(help: "Unfinished tasks one tenant may have (env TRANSFERD_MAX_QUEUED_TASKS_PER_TENANT).")
    var maxQueuedTasksPerTenant: Int = environment["TRANSFERD_MAX_QUEUED_TASKS_PER_TENANT"].flatMap { Int($0) } ?? 10_000

    @Option(
        help:
            "Bytes one tenant keeps on disk (contents, partial and staged files); 0 for no limit (env TRANSFERD_MAX_STORED_BYTES_PER_TENANT)."
    )
    var maxStoredBytesPerTenant: Int64 = environment["TRANSFERD_MAX_STORED_BYTES_PER_TENANT"].flatMap { Int64($0) } ?? 0

    @Option(help: "Largest download in bytes; a task's maxBytes may only lower it (env TRANSFERD_MAX_DOWNLOAD_SIZE).")
    var maxDownloadSize: Int64 = environment["TRANSFERD_MAX_DOWNLOAD_SIZE"].flatMap { Int64($0) } ?? 1 << 40

    @Option(help: "Free bytes kept in the data directory: below it new work gets 507 and transfers wait (env TRANSFERD_MIN_FREE_DISK).")
    var minFreeDisk: Int64 = environment["TRANSFERD_MIN_FREE_DISK"].flatMap { Int64($0) } ?? 1 << 30

    @Option(help: "Longest duration granted to a background task, in seconds (env TRANSFERD_MAX_BACKGROUND_TASK_DURATION).")
    var maxBackgroundTaskDuration: Double = environment["TRANSFERD_MAX_BACKGROUND_TASK_DURATION"].flatMap { Double($0) } ?? 180

    @Option(
        help:
            "Seconds between passes of the retention sweep, of the history's removal and of the aborts of abandoned multipart uploads (env TRANSFERD_SWEEP_INTERVAL)."
    )
    var sweepInterval: Double = environment["TRANSFERD_SWEEP_INTERVAL"].flatMap { Double($0) } ?? 60

    @Option(
        help: "Seconds from SIGTERM or SIGINT to the process's end, whatever still runs (env TRANSFERD_SHUTDOWN_GRACE)."
    )
    var shutdownGrace: Double = environment["TRANSFERD_SHUTDOWN_GRACE"].flatMap { Double($0) } ?? 25

    func validate() throws {
        do {
            _ = try contentStoreSettings
        } catch let error as DomainError {
            throw ValidationError(error.detail)
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535.") }
        guard (1...1024).contains(workerConcurrency) else { throw ValidationError("--worker-concurrency must be from 1 to 1024.") }
        guard (0...workerConcurrency).contains(maxTransfersPerTenant) else {
            throw ValidationError("--max-transfers-per-tenant must be from 0 (half the workers) to --worker-concurrency.")
        }
        guard maxRequestTimeout >= 1 else { throw ValidationError("--max-request-timeout must be at least 1 second.") }
        guard minTransferRate >= 0, stallTimeout >= 1 else {
            throw ValidationError("--min-transfer-rate must not be negative, and --stall-timeout at least 1 second.")
        }
        guard (1...1024).contains(webhookConcurrency) else { throw ValidationError("--webhook-concurrency must be from 1 to 1024.") }
        guard (1...256).contains(databaseConnections) else { throw ValidationError("--database-connections must be from 1 to 256.") }
        guard instanceID.isEmpty || Instance.isValid(id: instanceID) else {
            throw ValidationError("--instance-id must be 1 to 64 letters, digits, '.', ':', '_' or '-'.")
        }
        guard (3...3600).contains(leaseTimeout) else { throw ValidationError("--lease-timeout must be from 3 to 3600 seconds.") }
        guard LogFormat(rawValue: logFormat) != nil else {
            throw ValidationError("--log-format must be text or json, not \(logFormat).")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        guard retryInitialDelay > 0, retryMaximumDelay >= retryInitialDelay else {
            throw ValidationError("--retry-initial-delay must be positive and at most --retry-maximum-delay.")
        }
        guard maxBytesPerSecond == 0 || maxBytesPerSecond >= 1024 else {
            throw ValidationError("--max-bytes-per-second must be 0 (no limit) or at least 1024.")
        }
        if !bandwidthSchedule.isEmpty {
            do {
                _ = try BandwidthSchedule(bandwidthSchedule)
            } catch {
                throw ValidationError("--bandwidth-schedule is not a bandwidth schedule: \(error).")
            }
        }
        guard discretionaryWindow.isEmpty || DailyWindow(discretionaryWindow) != nil else {
            throw ValidationError("--discretionary-window must be HH:MM-HH:MM (seconds allowed), opening and closing at different times.")
        }
        guard caFile.isEmpty || FileManager.default.isReadableFile(atPath: caFile) else {
            throw ValidationError("--ca-file \(caFile) cannot be read.")
        }
        guard rateLimit > 0 else { throw ValidationError("--rate-limit must be positive.") }
        guard maxStreamsPerKey > 0 else { throw ValidationError("--max-streams-per-key must be positive.") }
        guard headerTimeout > 0, idleTimeout > 0, maxConnections > 0 else {
            throw ValidationError("--header-timeout, --idle-timeout and --max-connections must be positive.")
        }
        guard maxBackgroundTaskDuration > 0 else { throw ValidationError("--max-background-task-duration must be positive.") }
        guard sweepInterval > 0 else { throw ValidationError("--sweep-interval must be positive.") }
        guard historyRetention > 0, historyRetention <= 10 * 365 * 86_400 else {
            throw ValidationError("--history-retention must be a number of seconds greater than 0 and at most 315360000.")
        }
        guard shutdownGrace >= 2 else { throw ValidationError("--shutdown-grace must be at least 2 seconds.") }
        guard min(maxSessionsPerTenant, maxTasksPerSession, maxFetchesPerSession, maxFetchesPerTenant, maxQueuedTasksPerTenant) > 0,
            maxDownloadSize > 0,
            minFreeDisk >= 0,
            maxStoredBytesPerTenant >= 0
        else {
            throw ValidationError("The --max-… limits must be positive and --min-free-disk not negative.")
        }
        guard maxUploadSize > 0, uploadExpiration > 0, fileRetention > 0, responseBodyLimit >= 0 else {
            throw ValidationError(
                "--max-upload-size, --upload-expiration and --file-retention must be positive; --response-body-limit not negative."
            )
        }
        guard webhookTimeout > 0, webhookDisableAfter > 0 else {
            throw ValidationError("--webhook-timeout and --webhook-disable-after must be positive numbers of seconds.")
        }
        guard webhookProbeInterval >= 1, webhookProbeMaxInterval >= webhookProbeInterval else {
            throw ValidationError("--webhook-probe-interval must be at least 1 second, and --webhook-probe-max-interval at least as long.")
        }
        guard opsWebhook.isEmpty == opsWebhookSecret.isEmpty, opsWebhookSecret.isEmpty || WebhookSecret(opsWebhookSecret) != nil else {
            throw ValidationError(
                "--ops-webhook and --ops-webhook-secret go together; the secret is whsec_ and the base64 of 24 to 64 bytes."
            )
        }
        guard opsWebhook.isEmpty || URL(string: opsWebhook)?.scheme.map({ ["http", "https"].contains($0) }) == true else {
            throw ValidationError("--ops-webhook must be an http or https URL.")
        }
        guard otlpEndpoint.isEmpty || URL(string: otlpEndpoint)?.scheme.map({ ["http", "https"].contains($0) }) == true else {
            throw ValidationError("--otlp-endpoint must be an http or https URL, such as http://collector:4318.")
        }
        guard (0...1).contains(traceSampleRatio) else { throw ValidationError("--trace-sample-ratio must be between 0 and 1.") }
        guard retrySchedule != nil else {
            throw ValidationError("--webhook-retry-schedule must be one or more non-negative numbers of seconds, separated by commas.")
        }
    }
}
