import Hummingbird
import TransferdDomain
import TransferdServices

/// `/v1/events`: the events of every session of the caller's tenant, each with its session's identifier, as a
/// batch or streamed live (`Accept: text/event-stream`): enough to draw a live list of everything. One order runs
/// across sessions (`TenantEventCursor`), whose opaque cursors are the messages' ids, so that a reconnect with
/// `Last-Event-ID` resumes where the client was, also after a restart.
struct TenantEventsController: Sendable {
    let eventLog: EventLog
    let streams: EventStreams

    /// A batch of the tenant's events and the cursor to pass as `after` for the next one.
    struct TenantEventBatch: ResponseEncodable, Sendable {
        var items: [EventsController.EventResponse]
        var nextAfter: String
    }

    /// The controller's routes, relative to where the router mounts them.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get(use: list)
        return routes
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> Response {
        let after = try await cursor(after: request.uri.queryParameters.get("after"))
        if ServerSentEvents.isRequested(by: request) {
            let start = try Self.cursor(request.headers[ServerSentEvents.lastEventID], field: "Last-Event-ID") ?? after
            try await eventLog.refuseTrimmed(tenantID: context.tenantID, after: start)
            return try stream(from: start, context)
        }
        let limit = try request.pageLimit()
        let wait = try request.integerQuery("wait", in: 0...EventsController.maximumWait) ?? 0
        let events = try await eventLog.events(tenantID: context.tenantID, after: after, limit: limit, wait: .seconds(wait))
        let batch = TenantEventBatch(
            items: events.map { EventsController.EventResponse($0.event, session: $0.session) },
            nextAfter: (events.last?.cursor ?? after).description
        )
        return try batch.response(from: request, context: context)
    }

    private func stream(from start: TenantEventCursor, _ context: AppRequestContext) throws -> Response {
        let (eventLog, tenantID) = (eventLog, context.tenantID)
        return try streams.response(for: context, from: start) { cursor, wait in
            try await eventLog.events(tenantID: tenantID, after: cursor, limit: EventsController.streamBatch, wait: wait).map {
                EventStreams.Message(
                    id: $0.cursor.description,
                    event: EventsController.EventResponse($0.event, session: $0.session),
                    next: $0.cursor
                )
            }
        }
    }

    /// Where `after` says to start: at the start when absent, at the present for `now`, else after a cursor.
    private func cursor(after text: String?) async throws -> TenantEventCursor {
        text == "now" ? try await eventLog.presentCursor() : try Self.cursor(text, field: "after") ?? .start
    }

    /// A cursor the client sent back, in `field`; nil when absent.
    private static func cursor(_ text: String?, field: String) throws(Problem) -> TenantEventCursor? {
        guard let text else { return nil }
        guard let cursor = TenantEventCursor(text) else {
            throw .invalidField(
                field,
                "must be a cursor this API gave (an event stream message's id, or `nextAfter`)\(field == "after" ? ", or `now`" : "")"
            )
        }
        return cursor
    }
}
