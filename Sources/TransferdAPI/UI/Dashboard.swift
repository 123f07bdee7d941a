import Hummingbird

/// `/ui/`: the dashboard, served by transferd itself from templates and assets embedded in the binary. Its pages
/// read and act through the same services as the API, as the key that signed in.
struct Dashboard: Sendable {
    let api: APIDependencies
    let intake: TaskIntake

    func addRoutes(to router: Router<AppRequestContext>) throws {
        let gate = DashboardGate(
            dashboard: api.dashboard,
            sessions: api.sessions,
            pages: try DashboardPages(),
            contentLinks: api.contentLinks,
            clock: api.clock
        )
        router.get("ui") { _, _ in Response.seeOther("/ui/sessions") }
        let ui = router.group("ui")
        SignInPages(gate: gate).addRoutes(to: ui)
        SessionPages(gate: gate, sessions: api.sessions, tenants: api.tenants, intake: intake).addRoutes(to: ui)
        TaskPage(gate: gate, tasks: api.tasks, eventLog: api.eventLog).addRoutes(to: ui)
        DeliveriesPage(gate: gate, sessions: api.sessions, webhooks: api.webhooks).addRoutes(to: ui)
        BackgroundTasksPage(gate: gate, backgroundTasks: api.backgroundTasks, clock: api.clock).addRoutes(to: ui)
        StagedFilesPage(gate: gate, stagedFiles: api.stagedFiles).addRoutes(to: ui)
        APIKeysPage(gate: gate, keys: api.authentication.keys).addRoutes(to: ui)
        DashboardAssets.addRoutes(to: ui.group("assets"))
    }
}
