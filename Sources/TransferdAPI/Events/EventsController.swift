import Foundation
import Hummingbird
import TransferdDomain
import TransferdServices

/// `/v1/sessions/{identifier}/events`: the session's event log in order, polled, long-polled, or streamed live as
/// Server-Sent Events (`Accept: text/event-stream`).
struct EventsController: Sendable {
    static let maximumWait = 30
    /// The most events a stream reads at once.
    static let streamBatch = 500

    let eventLog: EventLog
    let streams: EventStreams
    let sessions: SessionService

    /// An event as the API shows it; with its session's identifier in the tenant's events, which mix sessions.
    struct EventResponse: Encodable, Sendable {
        var session: String?
        var sequence: Int64
        var type: EventType
        @ExplicitNull var taskIdentifier: Int64?
        var data: EventPayload
        var createdAt: Date

        init(_ event: Event, session: String? = nil) {
            self.session = session
            sequence = event.sequence
            type = event.type
            taskIdentifier = event.taskIdentifier
            data = event.payload
            createdAt = event.createdAt
        }
    }

    /// A batch of events and the sequence to pass as `after` for the next one.
    struct EventBatch: ResponseEncodable, Sendable {
        var items: [EventResponse]
        var nextAfter: Int64
    }

    /// The controller's routes, relative to where the router mounts them: where no `SessionMiddleware` is, since a
    /// page of events reads its session in the statement that reads the events.
    var lookups: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get(use: list)
        return routes
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> Response {
        if ServerSentEvents.isRequested(by: request) {
            var context = context
            context.resolvedSession = try await sessions.session(
                identifier: context.parameters.get("identifier") ?? "",
                tenantID: context.tenantID
            )
            return try stream(request, context)
        }
        let (after, limit, wait, task) = try await sessions.parameters(of: context) {
            (
                try request.integerQuery("after", in: 0...Int.max) ?? 0, try request.pageLimit(),
                try request.integerQuery("wait", in: 0...Self.maximumWait) ?? 0, try Self.task(of: request)
            )
        }
        let events = try await eventLog.events(
            ofSessionNamed: context.parameters.get("identifier") ?? "",
            tenantID: context.tenantID,
            after: Int64(after),
            taskIdentifier: task,
            limit: limit,
            wait: .seconds(wait)
        )
        let batch = EventBatch(items: events.map { EventResponse($0) }, nextAfter: events.last?.sequence ?? Int64(after))
        return try batch.response(from: request, context: context)
    }

    /// The session's events as they are written, from after `Last-Event-ID` (a reconnecting client's) or `after`:
    /// each a message whose `id` is its sequence, whose `event` is its type and whose `data` is its JSON as in the
    /// list.
    private func stream(_ request: Request, _ context: AppRequestContext) throws -> Response {
        let start = try Self.lastEventID(of: request) ?? Int64(request.integerQuery("after", in: 0...Int.max) ?? 0)
        let (eventLog, session, task) = (eventLog, context.session, try Self.task(of: request))
        guard start >= session.eventsTrimmedThrough else {
            throw Problem(DomainError.historyTrimmed(.session(earliestSequence: session.earliestSequence)))
        }
        return try streams.response(for: context, from: start) { cursor, wait in
            try await eventLog.events(of: session, after: cursor, taskIdentifier: task, limit: Self.streamBatch, wait: wait).map {
                EventStreams.Message(id: String($0.sequence), event: EventResponse($0), next: $0.sequence)
            }
        }
    }

    /// The `task` filter: only the events of the task with this identifier.
    private static func task(of request: Request) throws -> Int64? {
        try request.integerQuery("task", in: 1...Int.max).map(Int64.init)
    }

    /// The `Last-Event-ID` a reconnecting client sends: the sequence of the last event it received.
    private static func lastEventID(of request: Request) throws(Problem) -> Int64? {
        guard let text = request.headers[ServerSentEvents.lastEventID] else { return nil }
        guard let sequence = Int64(text), sequence >= 0 else {
            throw .invalidField("Last-Event-ID", "must be the sequence of an event, an integer from 0")
        }
        return sequence
    }
}
