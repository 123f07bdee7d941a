import Hummingbird

/// `/ui/`: the dashboard, served by transferd itself from templates and assets embedded in the binary. Its pages
/// read and act through the same services as the API, as the key that signed in.
struct Dashboard: Sendable {
    let api: APIDependencies
    let intake: TaskIntake

    /// Every page's routes, and the assets', relative to `/ui`.
    var endpoints: RouteCollection<AppRequestContext> {
        get throws {
            let gate = DashboardGate(
                dashboard: api.dashboard,
                sessions: api.sessions,
                pages: try DashboardPages(),
                contentLinks: api.contentLinks,
                clock: api.clock
            )
            let routes = RouteCollection(context: AppRequestContext.self)
            routes.get { _, _ in Response.seeOther("/ui/sessions") }
            routes.addRoutes(SignInPages(gate: gate).endpoints)
            routes.addRoutes(SessionPages(gate: gate, sessions: api.sessions, tenants: api.tenants, intake: intake).endpoints)
            routes.addRoutes(TaskPage(gate: gate, tasks: api.tasks, eventLog: api.eventLog).endpoints)
            routes.addRoutes(DeliveriesPage(gate: gate, sessions: api.sessions, webhooks: api.webhooks).endpoints)
            routes.addRoutes(BackgroundTasksPage(gate: gate, backgroundTasks: api.backgroundTasks, clock: api.clock).endpoints)
            routes.addRoutes(FetchesPage(gate: gate, fetches: api.fetches, admission: api.admission).endpoints)
            routes.addRoutes(StagedFilesPage(gate: gate, stagedFiles: api.stagedFiles).endpoints)
            routes.addRoutes(APIKeysPage(gate: gate, keys: api.authentication.keys).endpoints)
            routes.addRoutes(DashboardAssets.endpoints, atPath: "assets")
            return routes
        }
    }
}
