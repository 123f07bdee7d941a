import Foundation
import Hummingbird
import TransferdDomain
import TransferdServices

/// `/ui/sessions/{identifier}/background-tasks`: the session's background tasks, each with its
/// `backgroundTimeRemaining` (counted down live by the page's script) and its transfers.
struct BackgroundTasksPage: Sendable {
    let gate: DashboardGate
    let backgroundTasks: BackgroundTaskService
    let clock: any WallClock

    /// The page's routes, relative to `/ui`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("sessions/:identifier/background-tasks", use: gate.sessionPage(page))
        return routes
    }

    @Sendable func page(request: Request, context: AppRequestContext, signedIn: DashboardSignIn, session: Session) async throws -> Response
    {
        let now = clock.now
        let base = "/ui/sessions/\(session.identifier)"
        let rows: [[String: Any]] = try await backgroundTasks.list(sessionID: session.rowID).map { task, transfers in
            let remaining = task.remaining(at: now)
            var row: [String: Any] = [
                "id": task.publicId, "name": task.name, "state": task.state.rawValue,
                "remaining": String(format: "%.0f", remaining), "remainingText": "\(Int(remaining.rounded())) s",
                "granted": "\(Int(task.grantedDuration.rounded())) s", "expires": DisplayFormat.timeValues(task.expiresAt),
                "transfers": transfers.map {
                    ["identifier": $0.taskIdentifier, "state": $0.state.rawValue, "link": "\(base)/tasks/\($0.taskIdentifier)"]
                },
            ]
            row["counting"] = task.state == .active && remaining > 0
            return row
        }
        return gate.pages.render(
            "backgroundtasks",
            .init(title: "Background tasks · \(session.identifier)", signedIn: signedIn),
            [
                "identifier": session.identifier, "base": base, "tabBackgroundTasks": true, "tasks": rows, "hasTasks": !rows.isEmpty,
                "lastEventSequence": session.lastSequence,
            ]
        )
    }
}
