import Foundation
import Hummingbird
import TransferdDomain
import TransferdServices

/// `/ui/sessions/{identifier}/tasks/{taskIdentifier}`: one task, its request and response, its attempts as a
/// timeline with why it waits in plain words, its events, a link to its content, and the form that answers the
/// authentication challenge it waits on.
struct TaskPage: Sendable {
    let gate: DashboardGate
    let tasks: TaskService
    let eventLog: EventLog

    /// How many of the task's events the page lists; the API has them all.
    static let eventLimit = 200

    /// The page's routes, relative to `/ui`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("sessions/:identifier/tasks/:taskIdentifier", use: gate.sessionPage(page))
        routes.post("sessions/:identifier/tasks/:taskIdentifier/challenge", use: gate.sessionAction(ChallengeForm.self, answer))
        return routes
    }

    /// The challenge form: a user and password (Basic) or a token (Bearer), whether to keep it for the session, and
    /// the button pressed (`disposition`).
    struct ChallengeForm: Decodable, Sendable {
        var back: String?
        var disposition: String?
        var user: String?
        var password: String?
        var token: String?
        var persistence: String?

        /// The answer as the API takes it; empty fields count as absent.
        var body: ChallengeAnswerBody {
            func given(_ field: String?) -> String? { field.flatMap { $0.isEmpty ? nil : $0 } }
            let credential = ChallengeAnswerBody.CredentialBody(user: given(user), password: given(password), token: given(token))
            return ChallengeAnswerBody(
                disposition: disposition,
                credential: disposition == "useCredential" ? credential : nil,
                persistence: given(persistence)
            )
        }
    }

    /// Answers the task's challenge as `POST /v1/…/tasks/{n}/challenge` would, then shows the task.
    @Sendable func answer(
        form: ChallengeForm,
        context: AppRequestContext,
        signedIn: DashboardSignIn,
        session: Session
    ) async throws
        -> Response
    {
        let identifier = try context.parameters.taskIdentifier()
        _ = try await tasks.answerChallenge(try form.body.validate(), sessionID: session.rowID, taskIdentifier: identifier)
        return .seeOther(DashboardPath.back(form.back, otherwise: "/ui/sessions/\(session.identifier)/tasks/\(identifier)"))
    }

    @Sendable func page(request: Request, context: AppRequestContext, signedIn: DashboardSignIn, session: Session) async throws -> Response
    {
        let task = tasks.representation(of: try await tasks.task(try context.parameters.taskIdentifier(), in: session), in: session)
        let events = try await eventLog.events(
            of: session,
            after: session.eventsTrimmedThrough,
            taskIdentifier: task.taskIdentifier,
            limit: Self.eventLimit + 1,
            wait: .zero
        )
        let base = "/ui/sessions/\(session.identifier)"
        let api = "/v1/sessions/\(session.identifier)/tasks/\(task.taskIdentifier)"
        var values = TaskRow.values(task, session: session.identifier)
        values["title"] = "Task \(task.taskIdentifier)"
        values["session"] = session.identifier
        values["base"] = base
        values["tabTasks"] = true
        values["back"] = "\(base)/tasks/\(task.taskIdentifier)"
        values["description"] = task.taskDescription
        values["request"] = Self.request(task)
        values["response"] = task.response.map(Self.response)
        values["timeline"] = Self.timeline(task)
        values["challenge"] = task.challenge.map(Self.challenge)
        values["events"] = events.prefix(Self.eventLimit).map { event in
            [
                "sequence": event.sequence, "type": event.type.rawValue, "summary": EventWords.summary(event.payload),
                "time": DisplayFormat.timeValues(event.createdAt),
            ] as [String: Any]
        }
        if events.count > Self.eventLimit {
            values["moreEvents"] = "/v1/sessions/\(session.identifier)/events?task=\(task.taskIdentifier)"
        }
        values["lastEventSequence"] = session.lastSequence
        if let file = task.file, let object = file.object {
            // The content is the tenant's object, not a file of the service's.
            values["object"] = [
                "uri": "s3://\(object.storage)/\(object.key)", "size": DisplayFormat.size(file.size), "etag": object.etag,
                "sha256": file.sha256,
            ]
        } else if let file = task.file {
            values["content"] = [
                "link": gate.contentLink("\(api)/content", for: signedIn),
                "label": "Download the content (\(DisplayFormat.size(file.size)))", "sha256": file.sha256,
            ]
        } else if let reply = task.responseBody {
            values["content"] = [
                "link": gate.contentLink("\(api)/response-body", for: signedIn),
                "label": "The server's reply (\(DisplayFormat.size(reply.size)))",
            ]
        }
        return gate.pages.render("task", .init(title: "Task \(task.taskIdentifier) · \(session.identifier)", signedIn: signedIn), values)
    }

    private static func request(_ task: TaskRepresentation) -> [String: Any] {
        var request: [String: Any] = [
            "method": task.originalRequest.method, "url": task.originalRequest.url,
            "headers": task.originalRequest.headers.joined(separator: ", "), "hasHeaders": !task.originalRequest.headers.isEmpty,
            "priority": task.priority, "connections": task.connections, "mirrors": task.mirrors,
        ]
        if let current = task.currentRequest, current.url != task.originalRequest.url { request["currentURL"] = current.url }
        if let limit = task.maxBytesPerSecond { request["limit"] = "\(DisplayFormat.size(limit))/s" }
        if let destination = task.destination { request["destination"] = destination.uri }
        return request
    }

    private static func challenge(_ challenge: AuthenticationChallenge) -> [String: Any] {
        let space = challenge.protectionSpace
        var values: [String: Any] = [
            "server": (space.isProxy ? "The proxy " : "The server ") + "\(space.host):\(space.port)",
            "scheme": space.authenticationMethod, "bearer": space.authenticationMethod == "bearer",
            "expires": DisplayFormat.timeValues(challenge.expiresAt),
        ]
        values["realm"] = space.realm
        if challenge.previousFailureCount > 0 { values["refused"] = true }
        return values
    }

    private static func response(_ response: TransferResponse) -> [String: Any] {
        [
            "statusCode": response.statusCode, "mimeType": response.mimeType ?? "",
            "headers": response.headers.sorted { $0.key < $1.key }.map { ["name": $0.key, "value": $0.value] },
        ]
    }

    /// What happened to the task, oldest first: created, started, each attempt's end, and now (waiting, or done).
    private static func timeline(_ task: TaskRepresentation) -> [[String: Any]] {
        func step(_ date: Date?, _ what: String, _ tone: String = "") -> [String: Any] {
            var step: [String: Any] = ["what": what, "tone": tone]
            step["time"] = date.map(DisplayFormat.timeValues)
            return step
        }
        var steps = [step(task.createdAt, "Created")]
        if let started = task.startedAt { steps.append(step(started, "First started")) }
        for (index, attempt) in task.attempts.enumerated() {
            let succeeded = attempt.outcome == "succeeded"
            let what =
                succeeded
                ? "Attempt \(index + 1) succeeded: \(DisplayFormat.size(attempt.bytes))"
                : "Attempt \(index + 1) failed: \(TaskWords.outcome(attempt.outcome, statusCode: attempt.statusCode)), "
                    + "after \(DisplayFormat.size(attempt.bytes))"
            steps.append(step(attempt.endedAt, what, succeeded ? "completed" : "failed"))
        }
        if let reason = task.waitingReason {
            steps.append(step(nil, TaskWords.waiting(reason, until: task.nextAttemptAt), "suspended"))
        } else if let completed = task.completedAt {
            let outcome = task.error.map { "Completed: " + TaskWords.outcome($0.code.rawValue, statusCode: $0.statusCode) } ?? "Completed"
            steps.append(step(completed, outcome, task.error == nil ? "completed" : "failed"))
        } else {
            steps.append(step(nil, task.state == .suspended ? "Suspended" : "Now: \(task.state.rawValue)", task.state.rawValue))
        }
        return steps
    }
}
