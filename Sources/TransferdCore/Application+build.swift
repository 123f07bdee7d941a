import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore

/// The parts of a running transferd, wired once from a `Configuration`.
struct Components: Sendable {
    let database: AppDatabase
    let sessions: SessionStore
    let eventLog: EventLog
    let lifecycle: TaskLifecycle
    let scheduler: Scheduler
    let webhooks: WebhookStore
    let dispatcher: Dispatcher
    let httpClient: HTTPClientService
    let stagedFiles: StagedFileStore
    let sweeper: RetentionSweeper
    let clock: BackgroundTaskClock
    /// The longest a background task is granted, in seconds.
    let maximumBackgroundTaskDuration: Double
    let keys: APIKeyStore
    let idempotency: IdempotencyStore
    let disk: DiskSpace
    let limits: ResourceLimits
    let authentication: AuthenticationMiddleware

    init(configuration: Configuration, logger: Logger) throws {
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        database = try AppDatabase(path: configuration.dataDirectory + "/transferd.sqlite")
        let files = try FileStore(dataDirectory: configuration.dataDirectory)
        limits = configuration.limits
        disk = DiskSpace(directory: configuration.dataDirectory, minimumFreeBytes: configuration.limits.minimumFreeDiskBytes)
        stagedFiles = StagedFileStore(database: database, files: files, limits: configuration.stagedFileLimits)
        keys = APIKeyStore(database: database)
        idempotency = IdempotencyStore(database: database)
        authentication = AuthenticationMiddleware(
            keys: keys,
            disabled: configuration.authenticationDisabled,
            limiter: RequestRateLimiter(rate: configuration.requestsPerSecond, burst: configuration.requestBurst)
        )
        let transfers = ActiveTransfers()
        let wakeup = Doorbell()
        let outboxDoorbell = Doorbell()
        eventLog = EventLog(database: database, signal: EventSignal(), outbox: Outbox(doorbell: outboxDoorbell))
        webhooks = WebhookStore(database: database, eventLog: eventLog, doorbell: outboxDoorbell, policy: configuration.deliveryPolicy)
        sessions = SessionStore(
            database: database,
            webhooks: webhooks,
            maximumSessionsPerTenant: configuration.limits.maximumSessionsPerTenant
        )
        lifecycle = TaskLifecycle(
            database: database,
            eventLog: eventLog,
            files: files,
            transfers: transfers,
            wakeup: wakeup,
            backgroundClock: Doorbell(),
            retryPolicy: configuration.retryPolicy,
            limits: configuration.limits,
            resumeDataSigner: ResumeData.Signer(key: try database.resumeDataKey()),
            logger: logger
        )
        httpClient = HTTPClientService(connectTimeout: configuration.connectTimeout, policy: configuration.destinationPolicy)
        let serviceLimit = BandwidthLimit(bytesPerSecond: configuration.maxBytesPerSecond)
        scheduler = Scheduler(
            database: database,
            lifecycle: lifecycle,
            downloader: DownloadRunner(
                destinations: httpClient.destinations,
                files: files,
                lifecycle: lifecycle,
                progressInterval: configuration.progressInterval,
                serviceLimit: serviceLimit,
                disk: disk
            ),
            uploader: UploadRunner(
                destinations: httpClient.destinations,
                files: files,
                lifecycle: lifecycle,
                progressInterval: configuration.progressInterval,
                serviceLimit: serviceLimit,
                replyLimit: configuration.replyBodyLimit
            ),
            transfers: transfers,
            wakeup: wakeup,
            concurrency: configuration.workerConcurrency,
            maximumDownloadBytes: configuration.limits.maximumDownloadBytes,
            logger: logger
        )
        clock = BackgroundTaskClock(lifecycle: lifecycle, logger: logger)
        maximumBackgroundTaskDuration = configuration.maximumBackgroundTaskDuration
        sweeper = RetentionSweeper(
            database: database,
            eventLog: eventLog,
            files: files,
            interval: configuration.sweepInterval,
            logger: logger
        )
        dispatcher = Dispatcher(
            database: database,
            destinations: httpClient.destinations,
            policy: configuration.deliveryPolicy,
            doorbell: outboxDoorbell,
            logger: logger
        )
    }
}

/// The API's router: every route transferd serves, behind the problem middleware.
func buildRouter(_ components: Components) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: ProblemMiddleware())
    router.add(middleware: components.authentication)
    HealthController(database: components.database).addRoutes(to: router)

    let sessions = router.group("v1/sessions")
    let destinations = components.httpClient.destinations
    SessionsController(
        sessions: components.sessions,
        lifecycle: components.lifecycle,
        destinations: destinations,
        idempotency: components.idempotency
    )
    .addRoutes(to: sessions)
    let tasks = TasksController(
        sessions: components.sessions,
        lifecycle: components.lifecycle,
        destinations: destinations,
        disk: components.disk,
        idempotency: components.idempotency
    )
    let taskRoutes = sessions.group(":identifier/tasks")
    tasks.addRoutes(to: taskRoutes)
    TaskContentController(tasks: tasks, files: components.lifecycle.files).addRoutes(to: taskRoutes)
    EventsController(sessions: components.sessions, eventLog: components.eventLog).addRoutes(to: sessions.group(":identifier/events"))
    WebhookController(sessions: components.sessions, webhooks: components.webhooks, destinations: destinations)
        .addRoutes(to: sessions.group(":identifier/webhook"))
    DeliveriesController(sessions: components.sessions, webhooks: components.webhooks)
        .addRoutes(to: sessions.group(":identifier/deliveries"))
    FilesController(store: components.stagedFiles, disk: components.disk, idempotency: components.idempotency)
        .addRoutes(to: router.group("v1/files"))
    BackgroundTasksController(
        sessions: components.sessions,
        lifecycle: components.lifecycle,
        idempotency: components.idempotency,
        maximumDuration: components.maximumBackgroundTaskDuration
    )
    .addRoutes(to: sessions.group(":identifier/background-tasks"))
    return router
}

/// The composition root: configuration → database, services, router → an application ready to `runService()`.
///
/// Services start in order (HTTP client, scheduler, background task clock, webhook dispatcher, retention sweeper) and the HTTP server
/// last, so on shutdown the server stops taking requests first, then the others stop, the client last.
public func buildApplication(
    configuration: Configuration,
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "transferd")
    logger.logLevel = configuration.logLevel
    guard !configuration.authenticationDisabled || configuration.bindsToLoopback else {
        throw ValidationFailure("--no-auth is only allowed with a loopback --host (127.0.0.1 or ::1), not \(configuration.host)")
    }
    if let invalid = configuration.destinationPolicy.invalidAllowances.first {
        throw ValidationFailure("--allow-destination takes CIDR blocks such as 10.1.0.0/16 or fd00::/8, not \(invalid)")
    }
    let components = try Components(configuration: configuration, logger: logger)
    if !configuration.authenticationDisabled, let key = try components.keys.ensureInitialKey(configured: configuration.apiKey) {
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
    return Application(
        router: buildRouter(components),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "transferd"),
        services: [components.httpClient, components.scheduler, components.clock, components.dispatcher, components.sweeper],
        onServerRunning: onServerRunning,
        logger: logger
    )
}
