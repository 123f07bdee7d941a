import Hummingbird
import TransferdDomain
import TransferdServices

/// What the HTTP API serves requests with: the services, built by the composition root. The API reaches the engine
/// and the storage only through them.
package struct APIDependencies: Sendable {
    package var readiness: Readiness
    package var sessions: SessionService
    package var tasks: TaskService
    /// What new tasks pass before they are created.
    package var admission: TaskAdmission
    /// Where tasks' kept bytes are.
    package var content: TaskContent
    package var backgroundTasks: BackgroundTaskService
    package var fetches: FetchService
    package var webhooks: WebhookService
    package var stagedFiles: StagedFileService
    package var storages: ObjectStorageService
    package var tenants: TenantService
    package var idempotency: IdempotencyService
    package var eventLog: EventLog
    package var authentication: AuthenticationMiddleware
    /// Signing in to the dashboard.
    package var dashboard: DashboardSessionService
    /// The signed links the dashboard hands out to content.
    package var contentLinks: ContentLinks
    /// The destination policy, for the URLs that sessions, webhooks and stores are given.
    package var destinations: DestinationVetting
    package var clock: any WallClock
    /// The live event streams this instance serves.
    package var streams: EventStreams
    /// What this instance counts, served at `/metrics`.
    package var metrics: ServiceMetrics
    /// What a scrape samples first.
    package var sampler: MetricsSampler
    /// Whether each request is a span (tracing is on): Hummingbird's `TracingMiddleware`, which costs a request
    /// something even with the no-op tracer, so it is left out when tracing is off.
    package var tracesRequests = false

    package init(
        readiness: Readiness,
        sessions: SessionService,
        tasks: TaskService,
        admission: TaskAdmission,
        content: TaskContent,
        backgroundTasks: BackgroundTaskService,
        fetches: FetchService,
        webhooks: WebhookService,
        stagedFiles: StagedFileService,
        storages: ObjectStorageService,
        tenants: TenantService,
        idempotency: IdempotencyService,
        eventLog: EventLog,
        authentication: AuthenticationMiddleware,
        dashboard: DashboardSessionService,
        contentLinks: ContentLinks,
        destinations: DestinationVetting,
        clock: any WallClock,
        streams: EventStreams,
        metrics: ServiceMetrics,
        sampler: MetricsSampler
    ) {
        self.readiness = readiness
        self.sessions = sessions
        self.tasks = tasks
        self.admission = admission
        self.content = content
        self.backgroundTasks = backgroundTasks
        self.fetches = fetches
        self.webhooks = webhooks
        self.stagedFiles = stagedFiles
        self.storages = storages
        self.tenants = tenants
        self.idempotency = idempotency
        self.eventLog = eventLog
        self.authentication = authentication
        self.dashboard = dashboard
        self.contentLinks = contentLinks
        self.destinations = destinations
        self.clock = clock
        self.streams = streams
        self.metrics = metrics
        self.sampler = sampler
    }
}

/// The API's router: every route transferd serves, behind the problem and authentication middleware. Routes under
/// `/v1/sessions/{identifier}/` find their session once (`SessionMiddleware`), but for the reads of a session, a task
/// and events, which find it in the statement that reads what they show (`lookups`); creating routes take an
/// `Idempotency-Key` (`IdempotencyMiddleware`).
package func buildRouter(_ api: APIDependencies) throws -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    if api.tracesRequests { router.add(middleware: TracingMiddleware()) }
    router.add(middleware: RequestIDMiddleware())
    router.add(middleware: MetricsMiddleware(metrics: api.metrics))
    router.add(middleware: ProblemMiddleware())
    router.add(middleware: api.authentication)
    router.addRoutes(HealthController(readiness: api.readiness).endpoints)
    router.addRoutes(MetricsController(metrics: api.metrics, sampler: api.sampler).endpoints)
    let idempotentByBody = IdempotencyMiddleware(keys: api.idempotency, fingerprint: .body)

    let sessionsController = SessionsController(sessions: api.sessions, destinations: api.destinations, clock: api.clock)
    router.addRoutes(sessionsController.endpoints, atPath: "v1/sessions")
    let named = router.group("v1/sessions/:identifier")
    named.addRoutes(sessionsController.lookups)
    let session = named.group().add(middleware: SessionMiddleware(sessions: api.sessions))
    session.addRoutes(sessionsController.sessionEndpoints(idempotency: idempotentByBody))
    let intake = TaskIntake(tasks: api.tasks, admission: api.admission)
    let tasks = TasksController(intake: intake, sessions: api.sessions)
    named.group().add(middleware: SessionMiddleware(sessions: api.sessions, known: true))
        .addRoutes(tasks.creation(idempotency: idempotentByBody), atPath: "tasks")
    named.addRoutes(tasks.lookups, atPath: "tasks")
    session.addRoutes(tasks.endpoints, atPath: "tasks")
    let content = TaskContentController(tasks: tasks, kept: api.content)
    session.addRoutes(content.endpoints, atPath: "tasks")
    session.addRoutes(
        FetchesController(fetches: api.fetches, admission: api.admission, content: content).endpoints(idempotency: idempotentByBody),
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
        StorageController(storages: api.storages, destinations: api.destinations).endpoints,
        atPath: "v1/storage"
    )
    router.addRoutes(try Dashboard(api: api, intake: intake).endpoints, atPath: "ui")
    return router
}
