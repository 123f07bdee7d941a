import Logging
import TransferdDomain
import TransferdEngine
import TransferdServices

/// Everything an operator can set when starting transferd (flags and `TRANSFERD_*` environment variables map onto it).
struct Configuration: Sendable {
    /// Address the HTTP API binds to.
    var host: String
    /// A port on `host` that serves `/metrics` alone, without authentication; nil serves it on the API's port only.
    var metricsPort: Int?
    /// Port the HTTP API listens on; 0 picks a free one (tests).
    var port: Int
    /// Directory holding the SQLite database and downloaded files; created if missing. Instances over one PostgreSQL
    /// database share it (a shared volume).
    var dataDirectory: String
    /// `postgres://…`: the PostgreSQL database to keep state in instead of SQLite in the data directory.
    var databaseURL: String?
    /// How many connections to PostgreSQL each instance opens at most: how many transactions it runs at once.
    var databaseConnections: Int
    /// This instance's id among those sharing a database (its leases carry it), and how long its leases last.
    var instance: Instance
    /// How many transfers run at once, across all sessions.
    var workerConcurrency: Int
    /// The most transfers one tenant runs while another tenant has work; nil for half of `workerConcurrency`.
    var maximumTransfersPerTenant: Int?
    /// The longest `timeoutIntervalForRequest` a session gets.
    var maximumRequestTimeout: Duration
    /// The throughput below which a transfer gives its worker back (failed as `timedOut`, retried later); nil for none.
    var minimumTransferRate: TransferBounds.MinimumRate?
    /// How many sessions' subscribers are sent deliveries at once (each session one at a time, in order).
    var webhookConcurrency: Int
    /// Largest JSON request body accepted, in bytes.
    var maximumRequestBodySize: Int
    /// Minimum time between two `task.progress` events (and counter checkpoints) of one task.
    var progressInterval: Duration
    /// How long to wait for a TCP connection to an origin before the attempt fails.
    var connectTimeout: Duration
    /// Where traces go (OpenTelemetry); nil: tracing is off.
    var traceExport: TraceExport?
    /// Verbosity of the service's logs.
    var logLevel: Logger.Level
    /// `text` (one line a message, for people) or `json` (one object a line, for log collectors).
    var logFormat: LogFormat
    /// Webhook retry schedule, timeout and secret rotation window.
    var deliveryPolicy: DeliveryPolicy
    /// Where disabled webhook endpoints are told (`--ops-webhook`), if anywhere.
    var opsWebhook: OpsWebhook?
    /// The bucket that keeps downloads' content and uploads' replies (`--content-store`); nil: the data directory.
    var contentStore: ContentStoreSettings?
    /// Backoff between attempts of a transfer that failed transiently.
    var retryPolicy: RetryPolicy
    /// How big staged files may be, and how long unfinished uploads and complete files are kept.
    var stagedFileLimits: StagedFileLimits
    /// An admin API key to accept (`TRANSFERD_API_KEY`), instead of one generated at first start.
    var apiKey: String?
    /// `--no-auth`: no API keys, every request acts for the default tenant. Only with a loopback `host`.
    var authenticationDisabled: Bool
    /// Requests a second each API key may send on average, and the burst it may send at once.
    var requestsPerSecond: Double
    var requestBurst: Double
    /// The longest a background task is granted, in seconds (`--max-background-task-duration`).
    var maximumBackgroundTaskDuration: Double
    /// Quotas per tenant, session and task, and the free disk space kept.
    var limits: ResourceLimits
    /// Where transfers and webhooks may connect besides the public internet.
    var destinationPolicy: DestinationPolicy
    /// How often expired content and staged files are removed, and history past keeping.
    var sweepInterval: Duration
    /// How long sessions keep their history by default (`--history-retention`).
    var historyRetention = HistoryRetention(defaultPeriod: 30 * 86_400)
    /// How fast history past keeping is removed: gently beside the API; faster only in a simulation of months.
    var historyRemovalPace = RemovalPace.gentle
    /// The most bytes of an upload's reply body kept for the client.
    var replyBodyLimit: Int
    /// The bandwidth all transfers share, in bytes per second; nil for no limit.
    var maxBytesPerSecond: Int64?
    /// The bandwidth all transfers share by time of day (the lower of it and `maxBytesPerSecond` applies).
    var bandwidthSchedule: BandwidthSchedule?
    /// When discretionary sessions' transfers run; nil: only while nothing else waits.
    var discretionaryWindow: DailyWindow?
    /// The key sealing stored credentials (`TRANSFERD_CREDENTIALS_KEY`, base64); nil: `credentials.key` in the data
    /// directory.
    var credentialsKey: String?
    /// A PEM file of CA certificates that transfers and webhooks trust besides the system's.
    var trustedCertificates: String?
    /// How often an idle event stream sends a heartbeat comment.
    var streamHeartbeat: Duration
    /// The event streams one API key may hold open on this instance at once.
    var maximumStreamsPerKey: Int
    /// The HTTP server's header and idle timeouts and its connection cap.
    var connections: ConnectionLimits
    /// What time it is, for every rule about time (tests move it by hand).
    var clock: any WallClock

    init(
        host: String = "127.0.0.1",
        metricsPort: Int? = nil,
        port: Int = 8080,
        dataDirectory: String = "./transferd-data",
        databaseURL: String? = nil,
        databaseConnections: Int = 16,
        instance: Instance = Instance(id: "transferd", leaseTimeout: 15),
        workerConcurrency: Int = 16,
        maximumTransfersPerTenant: Int? = nil,
        maximumRequestTimeout: Duration = .seconds(600),
        minimumTransferRate: TransferBounds.MinimumRate? = nil,
        webhookConcurrency: Int = 64,
        maximumRequestBodySize: Int = 1 << 20,
        progressInterval: Duration = .milliseconds(500),
        connectTimeout: Duration = .seconds(10),
        logLevel: Logger.Level = .info,
        logFormat: LogFormat = .text,
        deliveryPolicy: DeliveryPolicy = DeliveryPolicy(),
        retryPolicy: RetryPolicy = RetryPolicy(),
        maxBytesPerSecond: Int64? = nil,
        bandwidthSchedule: BandwidthSchedule? = nil,
        discretionaryWindow: DailyWindow? = nil,
        credentialsKey: String? = nil,
        trustedCertificates: String? = nil,
        stagedFileLimits: StagedFileLimits = StagedFileLimits(),
        replyBodyLimit: Int = 1 << 20,
        sweepInterval: Duration = .seconds(60),
        apiKey: String? = nil,
        authenticationDisabled: Bool = false,
        requestsPerSecond: Double = 1000,
        requestBurst: Double = 4000,
        destinationPolicy: DestinationPolicy = DestinationPolicy(),
        limits: ResourceLimits = ResourceLimits(),
        maximumBackgroundTaskDuration: Double = 180,
        streamHeartbeat: Duration = .seconds(15),
        maximumStreamsPerKey: Int = 16,
        connections: ConnectionLimits = ConnectionLimits(),
        clock: any WallClock = SystemClock()
    ) {
        self.host = host
        self.metricsPort = metricsPort
        self.port = port
        self.dataDirectory = dataDirectory
        self.databaseURL = databaseURL
        self.databaseConnections = databaseConnections
        self.instance = instance
        self.workerConcurrency = workerConcurrency
        self.maximumTransfersPerTenant = maximumTransfersPerTenant
        self.maximumRequestTimeout = maximumRequestTimeout
        self.minimumTransferRate = minimumTransferRate
        self.webhookConcurrency = webhookConcurrency
        self.maximumRequestBodySize = maximumRequestBodySize
        self.progressInterval = progressInterval
        self.connectTimeout = connectTimeout
        self.logLevel = logLevel
        self.logFormat = logFormat
        self.deliveryPolicy = deliveryPolicy
        self.retryPolicy = retryPolicy
        self.maxBytesPerSecond = maxBytesPerSecond
        self.bandwidthSchedule = bandwidthSchedule
        self.discretionaryWindow = discretionaryWindow
        self.credentialsKey = credentialsKey
        self.trustedCertificates = trustedCertificates
        self.stagedFileLimits = stagedFileLimits
        self.replyBodyLimit = replyBodyLimit
        self.sweepInterval = sweepInterval
        self.apiKey = apiKey
        self.authenticationDisabled = authenticationDisabled
        self.requestsPerSecond = requestsPerSecond
        self.requestBurst = requestBurst
        self.destinationPolicy = destinationPolicy
        self.limits = limits
        self.maximumBackgroundTaskDuration = maximumBackgroundTaskDuration
        self.streamHeartbeat = streamHeartbeat
        self.connections = connections
        self.maximumStreamsPerKey = maximumStreamsPerKey
        self.clock = clock
    }

    /// Whether `host` only takes connections from this machine.
    var bindsToLoopback: Bool {
        ["127.0.0.1", "::1", "localhost"].contains(host) || host.hasPrefix("127.")
    }
}
