import Foundation
import Hummingbird
import TransferdDomain
import TransferdServices

/// `/v1/sessions/{identifier}/background-tasks`: beginBackgroundTask, backgroundTimeRemaining and
/// endBackgroundTask, as deadline-scoped groups of transfers.
struct BackgroundTasksController: Sendable {
    let backgroundTasks: BackgroundTaskService
    let clock: any WallClock

    /// The body of `POST …/background-tasks`.
    struct BeginRequest: Decodable {
        var name: String?
        var duration: Double?
        var expirationWarning: Double?
    }

    /// The body of `POST …/background-tasks/{id}/end`.
    struct EndRequest: Decodable {
        var cancelTasks: Bool?
    }

    /// The controller's routes, creation behind `idempotency`, relative to where the router mounts them.
    func endpoints(idempotency: IdempotencyMiddleware) -> RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.group().add(middleware: idempotency).post(use: begin)
        routes.get(use: list)
        routes.get(":backgroundTaskID", use: show)
        routes.post(":backgroundTaskID/end", use: end)
        return routes
    }

    @Sendable func begin(request: Request, context: AppRequestContext) async throws -> EditedResponse<BackgroundTaskResponse> {
        let body = try await request.decode(as: BeginRequest.self, context: context)
        guard let name = body.name, !name.isEmpty, name.utf8.count <= 200 else {
            throw Problem.invalidField("name", "is required: 1 to 200 bytes")
        }
        guard let duration = body.duration, duration > 0, duration.isFinite else {
            throw Problem.invalidField("duration", "is required: a number of seconds greater than 0")
        }
        let warning = body.expirationWarning ?? 5
        guard warning >= 0, warning.isFinite else {
            throw Problem.invalidField("expirationWarning", "must be a number of seconds, 0 or more")
        }
        let task = try await backgroundTasks.begin(
            sessionID: context.session.rowID,
            name: name,
            duration: duration,
            expirationWarning: warning
        )
        return EditedResponse(status: .created, response: BackgroundTaskResponse(task, transfers: [], now: clock.now))
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> Page<BackgroundTaskResponse> {
        let now = clock.now
        let items = try await backgroundTasks.list(sessionID: context.session.rowID).map {
            BackgroundTaskResponse($0, transfers: $1, now: now)
        }
        return Page(items: items, nextCursor: nil)
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> BackgroundTaskResponse {
        let (task, transfers) = try await backgroundTasks.find(try backgroundTaskID(context), sessionID: context.session.rowID)
        return BackgroundTaskResponse(task, transfers: transfers, now: clock.now)
    }

    @Sendable func end(request: Request, context: AppRequestContext) async throws -> BackgroundTaskResponse {
        let body = try await request.decode(as: EndRequest.self, context: context)
        let (task, transfers) = try await backgroundTasks.end(
            try backgroundTaskID(context),
            sessionID: context.session.rowID,
            cancelTasks: body.cancelTasks ?? false
        )
        return BackgroundTaskResponse(task, transfers: transfers, now: clock.now)
    }

    private func backgroundTaskID(_ context: AppRequestContext) throws(DomainError) -> String {
        try ClientIdentifier.validate(context.parameters.get("backgroundTaskID") ?? "", field: "backgroundTaskID")
    }
}
