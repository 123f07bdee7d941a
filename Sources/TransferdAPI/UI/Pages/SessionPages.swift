import Foundation
import Hummingbird
import TransferdDomain
import TransferdServices

/// `/ui/sessions` and `/ui/sessions/{identifier}`: the tenant's sessions with its usage against its quotas, and one
/// session's tasks with their progress (live with the page's script), filtered by state, with suspend, resume and
/// cancel, a form that enqueues a download, and the session's deletion, asked for on a page of its own first.
struct SessionPages: Sendable {
    let gate: DashboardGate
    let sessions: SessionService
    let tenants: TenantService
    let intake: TaskIntake
    private var tasks: TaskService { intake.tasks }

    /// The page's routes, relative to `/ui`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("sessions", use: gate.page(sessionsPage))
        routes.get("sessions/:identifier", use: gate.sessionPage(sessionPage))
        routes.post("sessions/:identifier/tasks", use: gate.sessionAction(EnqueueForm.self, enqueue))
        routes.get("sessions/:identifier/delete", use: gate.sessionPage(deletionPage))
        routes.post("sessions/:identifier/delete", use: gate.sessionAction(ActionForm.self, delete))
        routes.post(
            "sessions/:identifier/tasks/:taskIdentifier/suspend",
            use: gate.sessionAction(ActionForm.self) { try await apply(.suspend, $0, $1, $3) }
        )
        routes.post(
            "sessions/:identifier/tasks/:taskIdentifier/resume",
            use: gate.sessionAction(ActionForm.self) { try await apply(.resume, $0, $1, $3) }
        )
        routes.post(
            "sessions/:identifier/tasks/:taskIdentifier/cancel",
            use: gate.sessionAction(ActionForm.self) {
                try await apply(.cancel(.init(produceResumeData: false)), $0, $1, $3)
            }
        )
        return routes
    }

    /// The enqueue form: a URL to download, and an optional description.
    struct EnqueueForm: Decodable, Sendable {
        var url: String?
        var taskDescription: String?
    }

    /// A task action's form; `back` is the dashboard page to return to.
    struct ActionForm: Decodable, Sendable {
        var back: String?
    }

    @Sendable func sessionsPage(request: Request, context: AppRequestContext, signedIn: DashboardSignIn) async throws -> Response {
        let list = try await sessions.list(after: 0, limit: 1000, tenantID: signedIn.principal.tenantID)
        let details = try await sessions.details(sessionIDs: list.map(\.rowID))
        let rows: [[String: Any]] = list.map { session in
            let detail = details[session.rowID] ?? .init()
            return [
                "identifier": session.identifier, "state": session.state.rawValue,
                "running": (detail.taskCounts[.running] ?? 0) + (detail.taskCounts[.canceling] ?? 0),
                "suspended": detail.taskCounts[.suspended] ?? 0, "completed": detail.taskCounts[.completed] ?? 0,
                "stored": DisplayFormat.size(detail.storedBytes),
                "webhook": detail.webhook.map { session.configuration.sessionSendsLaunchEvents ? $0.state.rawValue : "held" } ?? "none",
                "backlog": detail.pendingDeliveries,
            ]
        }
        let standing = try await tenants.standing(id: signedIn.principal.tenantID)
        func figure(_ name: String, _ used: String, _ limit: String?) -> [String: Any] {
            ["name": name, "used": used, "limit": limit ?? "no limit"]
        }
        let quotas = [
            figure("Sessions", "\(standing.usage.sessions)", standing.quota.sessions.map { "\($0)" }),
            figure("Queued tasks", "\(standing.usage.queuedTasks)", standing.quota.queuedTasks.map { "\($0)" }),
            figure("Stored", DisplayFormat.size(standing.usage.storedBytes), standing.quota.storedBytes.map(DisplayFormat.size)),
            figure("Fetch schedules", "\(standing.usage.fetches)", standing.quota.fetches.map { "\($0)" }),
        ]
        return gate.pages.render(
            "sessions",
            .init(title: "Sessions", signedIn: signedIn),
            ["sessions": rows, "hasSessions": !rows.isEmpty, "quotas": quotas]
        )
    }

    /// A session's tasks (in one state with `?state=`), with their progress.
    @Sendable func sessionPage(
        request: Request,
        context: AppRequestContext,
        signedIn: DashboardSignIn,
        session: Session
    ) async throws
        -> Response
    {
        let state = request.uri.queryParameters.get("state").flatMap(TaskState.init(rawValue:))
        let list = try await tasks.tasks(in: session.rowID, after: 0, state: state, limit: 1000)
        let base = "/ui/sessions/\(session.identifier)"
        let filters: [[String: Any]] = ([nil] + TaskState.allCases).map { filter in
            ["label": filter?.rawValue ?? "all", "current": filter == state, "link": base + (filter.map { "?state=\($0.rawValue)" } ?? "")]
        }
        var values: [String: Any] = [
            "identifier": session.identifier, "base": base, "tabTasks": true, "lastEventSequence": session.lastSequence,
            "back": base + (state.map { "?state=\($0.rawValue)" } ?? ""), "filter": state?.rawValue ?? "",
            "tasks": list.map { TaskRow.values(tasks.representation(of: $0, in: session), session: session.identifier) },
            "hasTasks": !list.isEmpty, "filters": filters, "stateFilter": state != nil,
        ]
        values["webhook"] = WebhookSummary.values(try await sessions.details(sessionIDs: [session.rowID])[session.rowID]?.webhook)
        return gate.pages.render("session", .init(title: session.identifier, signedIn: signedIn), values)
    }

    /// Asks whether to delete the session, saying what goes with it.
    @Sendable func deletionPage(
        request: Request,
        context: AppRequestContext,
        signedIn: DashboardSignIn,
        session: Session
    ) async throws
        -> Response
    {
        let counts = try await sessions.details(sessionIDs: [session.rowID])[session.rowID]?.taskCounts ?? [:]
        let values: [String: Any] = [
            "identifier": session.identifier, "base": "/ui/sessions/\(session.identifier)", "taskCount": counts.values.reduce(0, +),
        ]
        return gate.pages.render("deletesession", .init(title: "Delete \(session.identifier)", signedIn: signedIn), values)
    }

    /// Deletes the session (``SessionService/delete(sessionID:)``), then shows the sessions left.
    @Sendable func delete(
        form: ActionForm,
        context: AppRequestContext,
        signedIn: DashboardSignIn,
        session: Session
    ) async throws
        -> Response
    {
        try await sessions.delete(sessionID: session.rowID)
        return .seeOther("/ui/sessions")
    }

    /// Enqueues a download of the form's URL, then shows the session.
    @Sendable func enqueue(
        form: EnqueueForm,
        context: AppRequestContext,
        signedIn: DashboardSignIn,
        session: Session
    ) async throws
        -> Response
    {
        let description = form.taskDescription.flatMap { $0.isEmpty ? nil : $0 }
        let item = CreateTaskRequest(kind: "download", url: form.url ?? "", taskDescription: description)
        _ = try await intake.create([item], itemsIn: nil, session: session)
        return .seeOther("/ui/sessions/\(session.identifier)")
    }

    private func apply(
        _ input: TaskStateMachine.Input,
        _ form: ActionForm,
        _ context: AppRequestContext,
        _ session: Session
    ) async throws
        -> Response
    {
        let identifier = try context.parameters.taskIdentifier()
        _ = try await tasks.apply(input, sessionID: session.rowID, taskIdentifier: identifier)
        return .seeOther(DashboardPath.back(form.back, otherwise: "/ui/sessions/\(session.identifier)"))
    }
}
