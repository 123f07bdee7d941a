import Foundation
import Hummingbird

/// `/v1/sessions`: create-or-reconnect, read, list and invalidate sessions.
struct SessionsController: Sendable {
    let sessions: SessionStore
    let lifecycle: TaskLifecycle

    /// A session as the API shows it.
    struct SessionResponse: ResponseCodable, Sendable {
        var identifier: String
        var state: Session.State
        var configuration: SessionConfiguration
        var taskCounts: [String: Int]
        var createdAt: Date
        var invalidatedAt: Date?

        init(_ session: Session, counts: [TaskState: Int]) {
            identifier = session.identifier
            state = session.state
            configuration = session.configuration
            taskCounts = Dictionary(uniqueKeysWithValues: TaskState.allCases.map { ($0.rawValue, counts[$0] ?? 0) })
            createdAt = session.createdAt
            invalidatedAt = session.invalidatedAt
        }
    }

    struct CreateSessionRequest: Decodable {
        var configuration: SessionConfiguration?
    }

    struct InvalidateRequest: Decodable {
        var cancelTasks: Bool?
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.put(":identifier", use: createOrReconnect)
        group.get(use: list)
        group.get(":identifier", use: show)
        group.post(":identifier/invalidate", use: invalidate)
    }

    @Sendable func createOrReconnect(request: Request, context: AppRequestContext) async throws -> EditedResponse<SessionResponse> {
        let identifier = context.parameters.sessionIdentifier()
        guard Session.isValidIdentifier(identifier) else {
            throw Problem.invalidField("identifier", "must be 1 to 200 characters of A-Z, a-z, 0-9, '.', '_' or '-'")
        }
        let body = try await request.decode(as: CreateSessionRequest.self, context: context)
        let configuration = body.configuration ?? .default
        try configuration.validate()
        let (session, created) = try await sessions.createOrReconnect(identifier: identifier, configuration: configuration)
        return EditedResponse(status: created ? .created : .ok, response: try await response(for: session))
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> Page<SessionResponse> {
        let limit = try request.pageLimit()
        let cursor = try request.integerQuery("cursor", in: 0...Int.max) ?? 0
        let page = try await sessions.list(after: Int64(cursor), limit: limit)
        let counts = try await sessions.taskCounts(sessionIDs: page.map(\.rowID))
        return Page(
            items: page.map { SessionResponse($0, counts: counts[$0.rowID] ?? [:]) },
            nextCursor: page.count == limit ? page.last.map { String($0.rowID) } : nil
        )
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> SessionResponse {
        try await response(for: sessions.session(identifier: context.parameters.sessionIdentifier()))
    }

    @Sendable func invalidate(request: Request, context: AppRequestContext) async throws -> SessionResponse {
        let session = try await sessions.session(identifier: context.parameters.sessionIdentifier())
        let body = try await request.decode(as: InvalidateRequest.self, context: context)
        let invalidated = try await lifecycle.invalidate(sessionID: session.rowID, cancelTasks: body.cancelTasks ?? false)
        return try await response(for: invalidated)
    }

    private func response(for session: Session) async throws -> SessionResponse {
        let counts = try await sessions.taskCounts(sessionIDs: [session.rowID])
        return SessionResponse(session, counts: counts[session.rowID] ?? [:])
    }
}
