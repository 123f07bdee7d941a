import Foundation
import Hummingbird
import TransferdDomain
import TransferdEngine
import TransferdServices

/// `/v1/sessions/{identifier}/events`: the session's event log in order, polled or long-polled.
struct EventsController: Sendable {
    static let maximumWait = 30

    let eventLog: EventLog

    /// An event as the API shows it.
    struct EventResponse: Encodable, Sendable {
        var sequence: Int64
        var type: EventType
        @ExplicitNull var taskIdentifier: Int64?
        var data: EventData
        var createdAt: Date

        init(_ event: Event) {
            sequence = event.sequence
            type = event.type
            taskIdentifier = event.taskIdentifier
            data = event.data
            createdAt = event.createdAt
        }
    }

    /// A batch of events and the sequence to pass as `after` for the next one.
    struct EventBatch: ResponseEncodable, Sendable {
        var items: [EventResponse]
        var nextAfter: Int64
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get(use: list)
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> EventBatch {
        let after = try request.integerQuery("after", in: 0...Int.max) ?? 0
        let limit = try request.pageLimit()
        let wait = try request.integerQuery("wait", in: 0...Self.maximumWait) ?? 0
        let events = try await eventLog.events(sessionID: context.session.rowID, after: Int64(after), limit: limit, wait: .seconds(wait))
        return EventBatch(items: events.map(EventResponse.init), nextAfter: events.last?.sequence ?? Int64(after))
    }
}
