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
    package var fetches: FetchService
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
    /// The stores that hold content in buckets.
    package var objects: ObjectStores
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
        fetches: FetchService,
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
        objects: ObjectStores,
        clock: any WallClock,
        streams: EventStreams,
        metrics: ServiceMetrics,
        sampler: MetricsSampler
    ) {
        self.store = store
        self.sessions = sessions
        self.tasks = tasks
        self.backgroundTasks = backgroundTasks
        self.fetches = fetches
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
        self.objects = objects
        self.clock = clock
    }
}

/// The API's router: every route transferd serves, behind the problem and authentication middleware. Routes under
/// `/v1/sessions/{identifier}/` find their session once (`SessionMiddleware`), but for the reads of a session, a task
/// and events, which find it in the statement that reads what they show (`lookups`); creating routes take an
/// `Idempotency-Key` (`IdempotencyMiddleware`).
package func buildRouter(_ api: APIDependencies) throws -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: RequestIDMiddleware())
    router.add(middleware: MetricsMiddleware(metrics: api.metrics))
    router.add(middleware: ProblemMiddleware())
    router.add(middleware: api.authentication)
    router.addRoutes(HealthController(store: api.store).endpoints)
    router.addRoutes(MetricsController(metrics: api.metrics, sampler: api.sampler).endpoints)
    let idempotentByBody = IdempotencyMiddleware(keys: api.idempotency, fingerprint: .body)

    let sessionsController = SessionsController(sessions: api.sessions, destinations: api.destinations, clock: api.clock)
    router.addRoutes(sessionsController.endpoints, atPath: "v1/sessions")
    let named = router.group("v1/sessions/:identifier")
    named.addRoutes(sessionsController.lookups)
    let session = named.group().add(middleware: SessionMiddleware(sessions: api.sessions))
    session.addRoutes(sessionsController.sessionEndpoints(idempotency: idempotentByBody))
    let storages = ObjectStorageService(store: api.store, clock: api.clock)
    let intake = TaskIntake(tasks: api.tasks, destinations: api.destinations, disk: api.disk, storages: storages)
    let tasks = TasksController(intake: intake, sessions: api.sessions)
    named.group().add(middleware: SessionMiddleware(sessions: api.sessions, known: true))
        .addRoutes(tasks.creation(idempotency: idempotentByBody), atPath: "tasks")
    named.addRoutes(tasks.lookups, atPath: "tasks")
    session.addRoutes(tasks.endpoints, atPath: "tasks")
    let content = TaskContentController(tasks: tasks, files: api.files, objects: api.objects)
    session.addRoutes(content.endpoints, atPath: "tasks")
    session.addRoutes(
        FetchesController(fetches: api.fetches, intake: intake, content: content).endpoints(idempotency: idempotentByBody),
        atPath: "fetches"
    )
    named.addRoutes(EventsController(eventLog: api.eventLog, streams: api.streams, sessions: api.sessions).lookups, atPath: "events")
    router.addRoutes(TenantEventsController(eventLog: api.eventLog, streams: api.streams).endpoints, atPath: "v1/events")
    session.addRoutes(
        WebhookController(webhooks: api.webhooks, destinations: api.destinations, clock: api.clock).endpoints,
        atPath: "webhook"
    )
    let deliveries = DeliveriesController(webhooks: api.webhooks)
    session.addRoutes(deliveries.endpoints, atPath: "deliveries")
    router.addRoutes(deliveries.tenantEndpoints, atPath: "v1/deliveries")
    session.addRoutes(
        BackgroundTasksController(backgroundTasks: api.backgroundTasks, clock: api.clock).endpoints(idempotency: idempotentByBody),
        atPath: "background-tasks"
    )
    let describedByHeaders = IdempotencyMiddleware(keys: api.idempotency, fingerprint: .headers(FilesController.describingHeaders))
    router.addRoutes(FilesController(store: api.stagedFiles).endpoints(idempotency: describedByHeaders), atPath: "v1/files")
    router.addRoutes(TenantController(tenants: api.tenants).endpoints, atPath: "v1/tenant")
    router.addRoutes(
        StorageController(storages: storages, destinations: api.destinations).endpoints,
        atPath: "v1/storage"
    )
    router.addRoutes(try Dashboard(api: api, intake: intake).endpoints, atPath: "ui")
    return router
}
