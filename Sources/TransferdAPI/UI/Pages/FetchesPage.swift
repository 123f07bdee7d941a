import Foundation
import Hummingbird
import TransferdDomain
import TransferdServices

/// `/ui/sessions/{identifier}/fetches`: the session's fetch schedules, each with its state, interval, last result
/// (linked to the run's task) and next run; the page refreshes as runs are judged. Its form schedules a fetch, as the
/// session page's enqueues a download.
struct FetchesPage: Sendable {
    let gate: DashboardGate
    let fetches: FetchService
    let admission: TaskAdmission

    /// The page's routes, relative to `/ui`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("sessions/:identifier/fetches", use: gate.sessionPage(page))
        routes.post("sessions/:identifier/fetches", use: gate.sessionAction(ScheduleForm.self, schedule))
        return routes
    }

    /// The schedule form: a URL, the seconds between runs, and an optional description.
    struct ScheduleForm: Decodable, Sendable {
        var url: String?
        var interval: String?
        var taskDescription: String?
    }

    /// Schedules a fetch of the form's URL, then shows the session's fetches.
    @Sendable func schedule(
        form: ScheduleForm,
        context: AppRequestContext,
        signedIn: DashboardSignIn,
        session: Session
    ) async throws
        -> Response
    {
        guard let interval = Int(form.interval ?? "") else {
            throw Problem.badRequest("`interval` must be a whole number of seconds between runs, at least 60.")
        }
        let body = CreateFetchRequest(
            url: form.url ?? "",
            interval: interval,
            taskDescription: form.taskDescription.flatMap { $0.isEmpty ? nil : $0 }
        )
        _ = try await FetchesController.schedule(body, in: session, fetches: fetches, admission: admission)
        return .seeOther("/ui/sessions/\(session.identifier)/fetches")
    }

    @Sendable func page(request: Request, context: AppRequestContext, signedIn: DashboardSignIn, session: Session) async throws -> Response
    {
        let base = "/ui/sessions/\(session.identifier)"
        let rows: [[String: Any]] = try await fetches.list(sessionID: session.rowID).map { fetch in
            var row: [String: Any] = [
                "id": fetch.publicId, "url": Redaction.url(fetch.request.url), "state": fetch.phase.state.rawValue,
                "interval": DisplayFormat.interval(seconds: fetch.timing.interval),
                "keepVersions": fetch.keepVersions,
            ]
            if fetch.phase.state != .paused { row["next"] = DisplayFormat.timeValues(fetch.nextRunAt) }
            if let window = fetch.timing.window { row["window"] = window.description }
            if let last = fetch.lastRun {
                var shown: [String: Any] = ["result": last.result.rawValue, "at": DisplayFormat.timeValues(last.performedAt)]
                if let task = last.taskIdentifier { shown["link"] = "\(base)/tasks/\(task)" }
                if let error = last.error { shown["error"] = error }
                row["last"] = shown
            }
            if let latest = fetch.latest {
                row["latest"] = ["sha256": String(latest.sha256.prefix(16)), "size": DisplayFormat.size(latest.size)]
            }
            return row
        }
        return gate.pages.render(
            "fetches",
            .init(title: "Fetches · \(session.identifier)", signedIn: signedIn),
            [
                "identifier": session.identifier, "base": base, "tabFetches": true, "fetches": rows, "hasFetches": !rows.isEmpty,
                "lastEventSequence": session.lastSequence,
            ]
        )
    }
}
