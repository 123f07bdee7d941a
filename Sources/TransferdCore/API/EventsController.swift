import Foundation
import Hummingbird

/// `/v1/sessions/{identifier}/events`: the session's event log in order, polled or long-polled.
struct EventsController: Sendable {
    static let maximumWait = 30

    let sessions: SessionStore
    let eventLog: EventLog

    /// An event as the API shows it.
    struct EventResponse: Codable, Sendable {
        var sequence: Int64
        var type: EventType
        var taskIdentifier: Int64?
        var data: EventData
        var createdAt: Date

        init(_ event: Event) {
            sequence = event.sequence
            type = event.type
            taskIdentifier = event.taskIdentifier
            data = event.data
            createdAt = event.createdAt
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(sequence, forKey: .sequence)
            try container.encode(type, forKey: .type)
            try container.encode(taskIdentifier, forKey: .taskIdentifier)
            try container.encode(data, forKey: .data)
            try container.encode(createdAt, forKey: .createdAt)
        }
    }

    /// A batch of events and the sequence to pass as `after` for the next one.
    struct EventBatch: ResponseCodable, Sendable {
        var items: [EventResponse]
        var nextAfter: Int64
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get(use: list)
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> EventBatch {
        let session = try await sessions.session(of: context)
        let after = try request.integerQuery("after", in: 0...Int.max) ?? 0
        let limit = try request.pageLimit()
        let wait = try request.integerQuery("wait", in: 0...Self.maximumWait) ?? 0
        let events = try await eventLog.events(sessionID: session.rowID, after: Int64(after), limit: limit, wait: .seconds(wait))
        return EventBatch(items: events.map(EventResponse.init), nextAfter: events.last?.sequence ?? Int64(after))
    }
}
