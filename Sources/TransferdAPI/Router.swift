import Hummingbird
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage

/// What the HTTP API serves requests with: the services, and the parts of the engine and the storage that requests
/// touch directly (vetting destinations, the free-space floor, files on disk).
package struct APIDependencies: Sendable {
    package var store: any Store
    package var sessions: SessionService
    package var tasks: TaskService
    package var backgroundTasks: BackgroundTaskService
    package var webhooks: WebhookService
    package var stagedFiles: StagedFileService
    package var tenants: TenantService
    package var idempotency: IdempotencyService
    package var eventLog: EventLog
    package var authentication: AuthenticationMiddleware
    /// Signing in to the dashboard.
    package var dashboard: DashboardSessionService
    /// The signed links the dashboard hands out to content.
    package var contentLinks: ContentLinks
    package var destinations: DestinationGuard
    package var disk: DiskSpace
    package var files: FileStore
    package var clock: any WallClock
    /// The live event streams this instance serves.
    package var streams: EventStreams
    /// What this instance counts, served at `/metrics`.
    package var metrics: ServiceMetrics
    /// What a scrape samples first.
    package var sampler: MetricsSampler

    package init(
        store: any Store,
        sessions: SessionService,
        tasks: TaskService,
        backgroundTasks: BackgroundTaskService,
        webhooks: WebhookService,
        stagedFiles: StagedFileService,
        tenants: TenantService,
        idempotency: IdempotencyService,
        eventLog: EventLog,
        authentication: AuthenticationMiddleware,
        dashboard: DashboardSessionService,
        contentLinks: ContentLinks,
        destinations: DestinationGuard,
        disk: DiskSpace,
        files: FileStore,
        clock: any WallClock,
        streams: EventStreams,
        metrics: ServiceMetrics,
        sampler: MetricsSampler
    ) {
        self.store = store
        self.sessions = sessions
        self.tasks = tasks
        self.backgroundTasks = backgroundTasks
        self.webhooks = webhooks
        self.stagedFiles = stagedFiles
        self.tenants = tenants
        self.idempotency = idempotency
        self.eventLog = eventLog
        self.authentication = authentication
        self.dashboard = dashboard
        self.contentLinks = contentLinks
        self.destinations = destinations
        self.disk = disk
        self.streams = streams
        self.metrics = metrics
        self.sampler = sampler
        self.files = files
        self.clock = clock
    }
}

/// The API's router: every route transferd serves, behind the problem and authentication middleware. Routes under
/// `/v1/sessions/{identifier}/` find their session once (`SessionMiddleware`); creating routes take an
/// `Idempotency-Key` (`IdempotencyMiddleware`).
package func buildRouter(_ api: APIDependencies) throws -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: RequestIDMiddleware())
    router.add(middleware: MetricsMiddleware(metrics: api.metrics))
    router.add(middleware: ProblemMiddleware())
    router.add(middleware: api.authentication)
    HealthController(store: api.store).addRoutes(to: router)
    MetricsController(metrics: api.metrics, sampler: api.sampler).addRoutes(to: router)
    let idempotentByBody = IdempotencyMiddleware(keys: api.idempotency, fingerprint: .body)

    let sessions = router.group("v1/sessions")
    let sessionsController = SessionsController(sessions: api.sessions, destinations: api.destinations, clock: api.clock)
    sessionsController.addRoutes(to: sessions)
    let named = sessions.group(":identifier")
    let session = named.group().add(middleware: SessionMiddleware(sessions: api.sessions))
    sessionsController.addSessionRoutes(to: session, idempotency: idempotentByBody)
    let intake = TaskIntake(tasks: api.tasks, destinations: api.destinations, disk: api.disk)
    let tasks = TasksController(intake: intake, sessions: api.sessions)
    tasks.addRoutes(
        to: session.group("tasks"),
        creatingIn: named.group("tasks").add(middleware: SessionMiddleware(sessions: api.sessions, known: true)),
        idempotency: idempotentByBody
    )
    TaskContentController(tasks: tasks, files: api.files).addRoutes(to: session.group("tasks"))
    EventsController(eventLog: api.eventLog, streams: api.streams).addRoutes(to: session.group("events"))
    TenantEventsController(eventLog: api.eventLog, streams: api.streams).addRoutes(to: router.group("v1/events"))
    WebhookController(webhooks: api.webhooks, destinations: api.destinations, clock: api.clock).addRoutes(to: session.group("webhook"))
    DeliveriesController(webhooks: api.webhooks).addRoutes(to: session.group("deliveries"))
    BackgroundTasksController(backgroundTasks: api.backgroundTasks, clock: api.clock)
        .addRoutes(to: session.group("background-tasks"), idempotency: idempotentByBody)
    FilesController(store: api.stagedFiles)
        .addRoutes(
            to: router.group("v1/files"),
            idempotency: IdempotencyMiddleware(keys: api.idempotency, fingerprint: .headers(FilesController.describingHeaders))
        )
    TenantController(tenants: api.tenants).addRoutes(to: router.group("v1/tenant"))
    try Dashboard(api: api, intake: intake).addRoutes(to: router)
    return router
}
