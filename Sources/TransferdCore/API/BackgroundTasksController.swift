import Foundation
import GRDB
import Hummingbird

/// `/v1/sessions/{identifier}/background-tasks`: beginBackgroundTask, backgroundTimeRemaining and
/// endBackgroundTask, as deadline-scoped groups of transfers.
struct BackgroundTasksController: Sendable {
    let sessions: SessionStore
    let lifecycle: TaskLifecycle
    let idempotency: IdempotencyStore
    /// The longest duration granted, in seconds.
    let maximumDuration: Double

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

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post(use: begin)
        group.get(use: list)
        group.get(":backgroundTaskID", use: show)
        group.post(":backgroundTaskID/end", use: end)
    }

    @Sendable func begin(request: Request, context: AppRequestContext) async throws -> Response {
        let session = try await sessions.session(of: context)
        return try await idempotency.once(request, context: context) { request in
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
            let task = try await lifecycle.beginBackgroundTask(
                sessionID: session.rowID,
                name: name,
                duration: duration,
                expirationWarning: warning,
                cap: maximumDuration
            )
            return try BufferedResponse(status: .created, json: BackgroundTaskResponse(task, transfers: []), context: context)
        }
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> Page<BackgroundTaskResponse> {
        let session = try await sessions.session(of: context)
        let items = try await lifecycle.database.pool.read { db in
            try BackgroundTask.filter(Column("session_id") == session.rowID).order(Column("id")).fetchAll(db)
                .map { BackgroundTaskResponse($0, transfers: try lifecycle.transfers(of: $0.publicId, db)) }
        }
        return Page(items: items, nextCursor: nil)
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> BackgroundTaskResponse {
        let session = try await sessions.session(of: context)
        let task = try await lifecycle.backgroundTask(try backgroundTaskID(context), sessionID: session.rowID)
        return try await response(for: task)
    }

    @Sendable func end(request: Request, context: AppRequestContext) async throws -> BackgroundTaskResponse {
        let session = try await sessions.session(of: context)
        let body = try await request.decode(as: EndRequest.self, context: context)
        let task = try await lifecycle.endBackgroundTask(
            try backgroundTaskID(context),
            sessionID: session.rowID,
            cancelTasks: body.cancelTasks ?? false
        )
        return try await response(for: task)
    }

    private func response(for task: BackgroundTask) async throws -> BackgroundTaskResponse {
        let transfers = try await lifecycle.database.pool.read { db in try lifecycle.transfers(of: task.publicId, db) }
        return BackgroundTaskResponse(task, transfers: transfers)
    }

    private func backgroundTaskID(_ context: AppRequestContext) throws(Problem) -> String {
        try ClientIdentifier.validate(context.parameters.get("backgroundTaskID") ?? "", field: "backgroundTaskID")
    }
}
