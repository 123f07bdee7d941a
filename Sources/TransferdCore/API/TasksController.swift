import Foundation
import GRDB
import Hummingbird

/// `/v1/sessions/{identifier}/tasks`: create, list and read tasks, and resume, suspend or cancel them.
struct TasksController: Sendable {
    let sessions: SessionStore
    let lifecycle: TaskLifecycle

    /// The body of `POST …/tasks`; every field is checked by hand so that each problem names its field.
    struct CreateTaskRequest: Decodable {
        var kind: String?
        var url: String?
        var headers: [String: String]?
        var taskDescription: String?
        var priority: Double?
        var start: Bool?
        var checksum: ChecksumRequest?
        var earliestBeginDate: Date?
    }

    /// `checksum` as given: both fields checked by hand for precise problems.
    struct ChecksumRequest: Decodable {
        var algorithm: String?
        var value: String?

        func validate() throws(Problem) -> Checksum {
            let algorithms = Checksum.Algorithm.allCases.map(\.rawValue).joined(separator: ", ")
            guard let name = algorithm, let algorithm = Checksum.Algorithm(rawValue: name) else {
                throw .invalidField("checksum.algorithm", "must be one of \(algorithms)")
            }
            let hex = value?.lowercased() ?? ""
            guard hex.count == algorithm.hexLength, hex.allSatisfy(\.isHexDigit) else {
                throw .invalidField("checksum.value", "must be \(algorithm.hexLength) hexadecimal digits for \(algorithm.rawValue)")
            }
            return Checksum(algorithm: algorithm, value: hex)
        }
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.post(use: create)
        group.get(use: list)
        group.get(":taskIdentifier", use: show)
        group.post(":taskIdentifier/resume") { try await apply(.resume, $0, $1) }
        group.post(":taskIdentifier/suspend") { try await apply(.suspend, $0, $1) }
        group.post(":taskIdentifier/cancel") { try await apply(.cancel, $0, $1) }
    }

    @Sendable func create(request: Request, context: AppRequestContext) async throws -> EditedResponse<TaskResponse> {
        let session = try await sessions.session(identifier: context.parameters.sessionIdentifier())
        let body = try await request.decode(as: CreateTaskRequest.self, context: context)
        let task = try await lifecycle.create(try Self.validate(body), inSession: session.rowID)
        return EditedResponse(status: .created, response: response(for: task))
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> Page<TaskResponse> {
        let session = try await sessions.session(identifier: context.parameters.sessionIdentifier())
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
            items: tasks.map(response(for:)),
            nextCursor: tasks.count == limit ? tasks.last.map { String($0.taskIdentifier) } : nil
        )
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> TaskResponse {
        response(for: try await task(context))
    }

    private func apply(_ input: TaskStateMachine.Input, _ request: Request, _ context: AppRequestContext) async throws -> TaskResponse {
        let session = try await sessions.session(identifier: context.parameters.sessionIdentifier())
        let task = try await lifecycle.apply(input, sessionID: session.rowID, taskIdentifier: try context.parameters.taskIdentifier())
        return response(for: task)
    }

    /// The task a request's path names, or a 404 problem.
    func task(_ context: AppRequestContext) async throws -> TransferTask {
        let session = try await sessions.session(identifier: context.parameters.sessionIdentifier())
        let taskIdentifier = try context.parameters.taskIdentifier()
        let task = try await lifecycle.database.pool.read { db in
            try TransferTask.fetch(db, sessionID: session.rowID, taskIdentifier: taskIdentifier)
        }
        guard let task else { throw Problem.notFound("Task \(taskIdentifier) does not exist in session `\(session.identifier)`.") }
        return task
    }

    private func response(for task: TransferTask) -> TaskResponse {
        TaskResponse(task, live: lifecycle.transfers[task.rowID]?.counters)
    }

    static func validate(_ body: CreateTaskRequest) throws(Problem) -> NewTask {
        guard let kindText = body.kind else { throw .badRequest("`kind` is required.") }
        guard let kind = TransferTask.Kind(rawValue: kindText) else {
            throw .invalidField(
                "kind",
                "must be one of \(TransferTask.Kind.allCases.map(\.rawValue).joined(separator: ", ")), not `\(kindText)`"
            )
        }
        guard let url = body.url else { throw .badRequest("`url` is required.") }
        guard url.utf8.count <= 8192, let components = URLComponents(string: url), components.host?.isEmpty == false else {
            throw .invalidField("url", "must be an absolute http or https URL with a host")
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidField("url", "must use the http or https scheme, not `\(components.scheme ?? "")`")
        }
        let priority = body.priority ?? 0.5
        guard (0...1).contains(priority) else {
            throw .invalidField("priority", "must be a number from 0.0 to 1.0")
        }
        if let description = body.taskDescription, description.utf8.count > 1024 {
            throw .invalidField("taskDescription", "must be at most 1024 bytes")
        }
        let headers = body.headers ?? [:]
        try HeaderValidation.validate(headers, field: "headers")
        return NewTask(
            kind: kind,
            request: TransferRequest(url: url, method: "GET", headers: headers),
            origin: TransferJob.origin(of: components),
            taskDescription: body.taskDescription,
            priority: priority,
            checksum: try body.checksum?.validate(),
            earliestBeginDate: body.earliestBeginDate,
            start: body.start ?? true
        )
    }
}
