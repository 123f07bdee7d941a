import Foundation
import GRDB
import Hummingbird

/// `/v1/sessions/{identifier}/tasks`: create, list, read and change tasks, and resume, suspend or cancel them.
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
        var connections: Int?
        var maxBytesPerSecond: Int64?
        var resumeData: String?
    }

    /// The body of `POST …/cancel`.
    struct CancelRequest: Decodable {
        var produceResumeData: Bool?
    }

    /// The body of `PATCH …/tasks/{n}`: the fields given change; `maxBytesPerSecond: null` removes the limit.
    struct UpdateTaskRequest: Decodable {
        var priority: Double?
        var taskDescription: String?
        var maxBytesPerSecond: Int64?
        var changesMaxBytesPerSecond: Bool

        enum CodingKeys: String, CodingKey {
            case priority, taskDescription, maxBytesPerSecond
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            priority = try container.decodeIfPresent(Double.self, forKey: .priority)
            taskDescription = try container.decodeIfPresent(String.self, forKey: .taskDescription)
            maxBytesPerSecond = try container.decodeIfPresent(Int64.self, forKey: .maxBytesPerSecond)
            changesMaxBytesPerSecond = container.contains(.maxBytesPerSecond)
        }

        func validate() throws(Problem) -> TaskChange {
            if let priority { try TasksController.validatePriority(priority) }
            if let taskDescription { try TasksController.validateDescription(taskDescription) }
            if let maxBytesPerSecond { try TasksController.validateMaxBytesPerSecond(maxBytesPerSecond) }
            return TaskChange(
                priority: priority,
                taskDescription: taskDescription,
                maxBytesPerSecond: changesMaxBytesPerSecond ? .some(maxBytesPerSecond) : nil
            )
        }
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
        group.patch(":taskIdentifier", use: update)
        group.post(":taskIdentifier/resume") { try await apply(.resume, $0, $1) }
        group.post(":taskIdentifier/suspend") { try await apply(.suspend, $0, $1) }
        group.post(":taskIdentifier/cancel", use: cancel)
    }

    @Sendable func create(request: Request, context: AppRequestContext) async throws -> EditedResponse<TaskResponse> {
        let session = try await sessions.session(identifier: context.parameters.sessionIdentifier())
        let body = try await request.decode(as: CreateTaskRequest.self, context: context)
        let resumeData = try body.resumeData.map { token throws(Problem) in try lifecycle.resumeDataSigner.decode(token) }
        let task = try await lifecycle.create(try Self.validate(body, resumeData: resumeData), inSession: session.rowID)
        return EditedResponse(status: .created, response: response(for: task, in: session))
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
            items: tasks.map { response(for: $0, in: session) },
            nextCursor: tasks.count == limit ? tasks.last.map { String($0.taskIdentifier) } : nil
        )
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> TaskResponse {
        let (task, session) = try await taskAndSession(context)
        return response(for: task, in: session)
    }

    @Sendable func update(request: Request, context: AppRequestContext) async throws -> TaskResponse {
        let session = try await sessions.session(identifier: context.parameters.sessionIdentifier())
        let change = try await request.decode(as: UpdateTaskRequest.self, context: context).validate()
        let task = try await lifecycle.update(change, sessionID: session.rowID, taskIdentifier: try context.parameters.taskIdentifier())
        return response(for: task, in: session)
    }

    /// Cancels the task; with `produceResumeData` it answers once the transfer has stopped, with the resume data
    /// in the task's `error.resumeData` (null when the bytes cannot be continued).
    @Sendable func cancel(request: Request, context: AppRequestContext) async throws -> TaskResponse {
        let session = try await sessions.session(identifier: context.parameters.sessionIdentifier())
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
        let session = try await sessions.session(identifier: context.parameters.sessionIdentifier())
        let task = try await lifecycle.apply(input, sessionID: session.rowID, taskIdentifier: try context.parameters.taskIdentifier())
        return response(for: task, in: session)
    }

    /// The task a request's path names, or a 404 problem.
    func task(_ context: AppRequestContext) async throws -> TransferTask {
        try await taskAndSession(context).0
    }

    private func taskAndSession(_ context: AppRequestContext) async throws -> (TransferTask, Session) {
        let session = try await sessions.session(identifier: context.parameters.sessionIdentifier())
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

    static func validatePriority(_ priority: Double) throws(Problem) {
        guard (0...1).contains(priority) else { throw .invalidField("priority", "must be a number from 0.0 to 1.0") }
    }

    static func validateDescription(_ description: String) throws(Problem) {
        guard description.utf8.count <= 1024 else { throw .invalidField("taskDescription", "must be at most 1024 bytes") }
    }

    static func validateMaxBytesPerSecond(_ rate: Int64) throws(Problem) {
        guard rate >= 1024 else {
            throw .invalidField("maxBytesPerSecond", "must be at least 1024 (bytes per second), or null for no limit")
        }
    }

    /// Checks the body of `POST …/tasks`; with `resumeData` the URL comes from the token (a `url` given must match).
    static func validate(_ body: CreateTaskRequest, resumeData: ResumeData? = nil) throws(Problem) -> NewTask {
        guard let kindText = body.kind else { throw .badRequest("`kind` is required.") }
        guard let kind = TransferTask.Kind(rawValue: kindText) else {
            throw .invalidField(
                "kind",
                "must be one of \(TransferTask.Kind.allCases.map(\.rawValue).joined(separator: ", ")), not `\(kindText)`"
            )
        }
        if let resumeData, let url = body.url, url != resumeData.url {
            throw .invalidField("url", "must be the resume data's URL (\(resumeData.url)) or be left out")
        }
        guard let url = body.url ?? resumeData?.url else { throw .badRequest("`url` is required.") }
        guard url.utf8.count <= 8192, let components = URLComponents(string: url), components.host?.isEmpty == false else {
            throw .invalidField("url", "must be an absolute http or https URL with a host")
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidField("url", "must use the http or https scheme, not `\(components.scheme ?? "")`")
        }
        let priority = body.priority ?? 0.5
        try validatePriority(priority)
        if let description = body.taskDescription { try validateDescription(description) }
        let connections = body.connections ?? 1
        guard (1...16).contains(connections) else { throw .invalidField("connections", "must be an integer from 1 to 16") }
        if let rate = body.maxBytesPerSecond { try validateMaxBytesPerSecond(rate) }
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
            connections: connections,
            maxBytesPerSecond: body.maxBytesPerSecond,
            resumeData: resumeData,
            start: body.start ?? true
        )
    }
}
