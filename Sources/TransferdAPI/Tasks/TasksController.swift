import Foundation
import Hummingbird
import TransferdDomain
import TransferdServices

/// `/v1/sessions/{identifier}/tasks`: create, list, read and change tasks, and resume, suspend or cancel them.
struct TasksController: Sendable {
    let intake: TaskIntake
    let sessions: SessionService
    var tasks: TaskService { intake.tasks }

    /// The routes; creation's in `creating`, whose session may be one found a few seconds ago.
    /// Creation, behind `idempotency`, relative to where the router mounts it.
    func creation(idempotency: IdempotencyMiddleware) -> RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.add(middleware: idempotency).post(use: create)
        return routes
    }

    /// Reading a task, which finds its session in the same statement: mounted where no `SessionMiddleware` is.
    var lookups: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get(":taskIdentifier", use: show)
        return routes
    }

    /// The tasks' other routes, relative to where the router mounts them.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get(use: list)
        routes.patch(":taskIdentifier", use: update)
        routes.post(":taskIdentifier/resume") { try await apply(.resume, $0, $1) }
        routes.post(":taskIdentifier/suspend") { try await apply(.suspend, $0, $1) }
        routes.post(":taskIdentifier/cancel", use: cancel)
        routes.post(":taskIdentifier/challenge", use: answerChallenge)
        return routes
    }

    /// Creates one task, or a batch of them in one transaction.
    @Sendable func create(request: Request, context: AppRequestContext) async throws -> Response {
        var session = context.session
        let body = try await request.decode(as: CreateTasksBody.self, context: context)
        let written: [TransferTask]
        do {
            written = try await intake.create(body.items, itemsIn: body.itemField, session: session)
        } catch DomainError.conflict(let reason) {
            // The session found a few seconds ago may have been invalidated since, and the identifier given to a new
            // one: the tasks go to the session it names now.
            let current = try await sessions.session(identifier: session.identifier, tenantID: context.tenantID)
            guard current.rowID != session.rowID else { throw DomainError.conflict(reason) }
            session = current
            written = try await intake.create(body.items, itemsIn: body.itemField, session: session)
        }
        let created = written.map { tasks.representation(of: $0, in: session) }
        guard body.itemField != nil else {
            return try EditedResponse(status: .created, response: created[0]).response(from: request, context: context)
        }
        return try EditedResponse(status: .created, response: TaskBatch(tasks: created)).response(from: request, context: context)
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> Page<TaskRepresentation> {
        let limit = try request.pageLimit()
        let cursor = try request.integerQuery("cursor", in: 0...Int.max) ?? 0
        let state = try request.uri.queryParameters.get("state").map { text throws(Problem) in
            guard let state = TaskState(rawValue: text) else {
                throw Problem.invalidField("state", "must be one of \(TaskState.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return state
        }
        let session = context.session
        let page = try await tasks.tasks(in: session.rowID, after: Int64(cursor), state: state, limit: limit)
        return Page(
            items: page.map { tasks.representation(of: $0, in: session) },
            nextCursor: page.count == limit ? page.last.map { String($0.taskIdentifier) } : nil
        )
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> TaskRepresentation {
        let taskIdentifier = try await sessions.parameters(of: context) { try context.parameters.taskIdentifier() }
        let identifier = context.parameters.get("identifier") ?? ""
        let (session, task) = try await sessions.session(identifier: identifier, tenantID: context.tenantID, task: taskIdentifier)
        return tasks.representation(of: task, in: session)
    }

    @Sendable func update(request: Request, context: AppRequestContext) async throws -> TaskRepresentation {
        let change = try await request.decode(as: UpdateTaskRequest.self, context: context).validate()
        let task = try await tasks.update(change, sessionID: context.session.rowID, taskIdentifier: try context.parameters.taskIdentifier())
        return tasks.representation(of: task, in: context.session)
    }

    /// Cancels the task; with `produceResumeData` it answers once the transfer has stopped, with the resume data
    /// in the task's `error.resumeData` (null when the bytes cannot be continued).
    @Sendable func cancel(request: Request, context: AppRequestContext) async throws -> TaskRepresentation {
        let body = try await request.decode(as: CancelRequest.self, context: context)
        let produceResumeData = body.produceResumeData ?? false
        var task = try await tasks.apply(
            .cancel(.init(produceResumeData: produceResumeData)),
            sessionID: context.session.rowID,
            taskIdentifier: try context.parameters.taskIdentifier()
        )
        if produceResumeData { task = try await tasks.settled(task, timeout: .seconds(30)) }
        return tasks.representation(of: task, in: context.session)
    }

    /// didReceiveChallenge's completion handler: the answer to the challenge the task waits on.
    @Sendable func answerChallenge(request: Request, context: AppRequestContext) async throws -> TaskRepresentation {
        let answer = try await request.decode(as: ChallengeAnswerBody.self, context: context).validate()
        let task = try await tasks.answerChallenge(
            answer,
            sessionID: context.session.rowID,
            taskIdentifier: try context.parameters.taskIdentifier()
        )
        return tasks.representation(of: task, in: context.session)
    }

    private func apply(_ input: TaskStateMachine.Input, _ request: Request, _ context: AppRequestContext) async throws -> TaskRepresentation
    {
        let task = try await tasks.apply(input, sessionID: context.session.rowID, taskIdentifier: try context.parameters.taskIdentifier())
        return tasks.representation(of: task, in: context.session)
    }

    /// The task a request's path names, or a 404 problem.
    func task(_ context: AppRequestContext) async throws -> TransferTask {
        try await tasks.task(try context.parameters.taskIdentifier(), in: context.session)
    }
}
