import Foundation
import GRDB
import Hummingbird

/// `/v1/sessions/{identifier}/tasks`: create, list, read and change tasks, and resume, suspend or cancel them.
struct TasksController: Sendable {
    let sessions: SessionStore
    let lifecycle: TaskLifecycle
    let destinations: DestinationGuard
    let disk: DiskSpace
    let idempotency: IdempotencyStore

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post(use: create)
        group.get(use: list)
        group.get(":taskIdentifier", use: show)
        group.patch(":taskIdentifier", use: update)
        group.post(":taskIdentifier/resume") { try await apply(.resume, $0, $1) }
        group.post(":taskIdentifier/suspend") { try await apply(.suspend, $0, $1) }
        group.post(":taskIdentifier/cancel", use: cancel)
    }

    @Sendable func create(request: Request, context: AppRequestContext) async throws -> Response {
        let session = try await sessions.session(of: context)
        return try await idempotency.once(request, context: context) { request in
            let body = try await request.decode(as: CreateTaskRequest.self, context: context)
            let resumeData = try body.resumeData.map { token throws(Problem) in try lifecycle.resumeDataSigner.decode(token) }
            let newTask = try body.validate(resumeData: resumeData)
            try disk.refuseNewWorkWhenLow()
            try await destinations.vet(newTask.request.url, field: "url")
            let task = try await lifecycle.create(newTask, inSession: session.rowID)
            return try BufferedResponse(status: .created, json: response(for: task, in: session), context: context)
        }
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> Page<TaskResponse> {
        let session = try await sessions.session(of: context)
        let limit = try request.pageLimit()
        let cursor = try request.integerQuery("cursor", in: 0...Int.max) ?? 0
        var filter = TransferTask.Columns.sessionId == session.rowID && TransferTask.Columns.taskIdentifier > cursor
        if let stateText = request.uri.queryParameters.get("state") {
            guard let state = TaskState(rawValue: stateText) else {
                throw Problem.invalidField("state", "must be one of \(TaskState.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            filter = filter && TransferTask.Columns.state == state.rawValue
        }
        let tasks = try await lifecycle.database.pool.read { [filter] db in
            try TransferTask.filter(filter).order(TransferTask.Columns.taskIdentifier).limit(limit).fetchAll(db)
        }
        return Page(
            items: tasks.map { response(for: $0, in: session) },
            nextCursor: tasks.count == limit ? tasks.last.map { String($0.taskIdentifier) } : nil
        )
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> TaskResponse {
        let (task, session) = try await taskAndSession(context)
        return response(for: task, in: session)
    }

    @Sendable func update(request: Request, context: AppRequestContext) async throws -> TaskResponse {
        let session = try await sessions.session(of: context)
        let change = try await request.decode(as: UpdateTaskRequest.self, context: context).validate()
        let task = try await lifecycle.update(change, sessionID: session.rowID, taskIdentifier: try context.parameters.taskIdentifier())
        return response(for: task, in: session)
    }

    /// Cancels the task; with `produceResumeData` it answers once the transfer has stopped, with the resume data
    /// in the task's `error.resumeData` (null when the bytes cannot be continued).
    @Sendable func cancel(request: Request, context: AppRequestContext) async throws -> TaskResponse {
        let session = try await sessions.session(of: context)
        let body = try await request.decode(as: CancelRequest.self, context: context)
        let produceResumeData = body.produceResumeData ?? false
        var task = try await lifecycle.apply(
            .cancel,
            sessionID: session.rowID,
            taskIdentifier: try context.parameters.taskIdentifier(),
            produceResumeData: produceResumeData
        )
        if produceResumeData { task = try await lifecycle.settled(task, timeout: .seconds(30)) }
        return response(for: task, in: session)
    }

    private func apply(_ input: TaskStateMachine.Input, _ request: Request, _ context: AppRequestContext) async throws -> TaskResponse {
        let session = try await sessions.session(of: context)
        let task = try await lifecycle.apply(input, sessionID: session.rowID, taskIdentifier: try context.parameters.taskIdentifier())
        return response(for: task, in: session)
    }

    /// The task a request's path names, or a 404 problem.
    func task(_ context: AppRequestContext) async throws -> TransferTask {
        try await taskAndSession(context).0
    }

    private func taskAndSession(_ context: AppRequestContext) async throws -> (TransferTask, Session) {
        let session = try await sessions.session(of: context)
        let taskIdentifier = try context.parameters.taskIdentifier()
        let task = try await lifecycle.database.pool.read { db in
            try TransferTask.fetch(db, sessionID: session.rowID, taskIdentifier: taskIdentifier)
        }
        guard let task else { throw Problem.notFound("Task \(taskIdentifier) does not exist in session `\(session.identifier)`.") }
        return (task, session)
    }

    private func response(for task: TransferTask, in session: Session) -> TaskResponse {
        let transfers = lifecycle.transfers
        let busy = transfers.count(sessionID: session.rowID, origin: task.origin) >= session.configuration.maximumConnectionsPerHost
        return TaskResponse(task, live: transfers[task.rowID]?.counters, hostIsBusy: busy)
    }
}
