import Foundation
import Hummingbird
import TransferdDomain
import TransferdServices

/// `/v1/sessions`: create-or-reconnect, read, list and invalidate sessions.
struct SessionsController: Sendable {
    let sessions: SessionService
    let destinations: DestinationVetting
    let clock: any WallClock

    /// `PUT /v1/sessions/{identifier}` and `GET /v1/sessions`, which name no existing session.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.put(":identifier", use: createOrReconnect)
        routes.get(use: list)
        return routes
    }

    /// Reading one session (`/v1/sessions/{identifier}`), which finds it with its details in one statement: mounted
    /// where no `SessionMiddleware` is.
    var lookups: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get(use: show)
        return routes
    }

    /// The other routes of one session (`/v1/sessions/{identifier}`), behind the `SessionMiddleware`.
    func sessionEndpoints(idempotency: IdempotencyMiddleware) -> RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.patch(use: update)
        routes.delete(use: remove)
        routes.group("invalidate").add(middleware: idempotency).post(use: invalidate)
        return routes
    }

    @Sendable func createOrReconnect(request: Request, context: AppRequestContext) async throws -> EditedResponse<SessionResponse> {
        let identifier = try ClientIdentifier.validate(context.parameters.get("identifier") ?? "", field: "identifier")
        let body = try await request.decode(as: CreateSessionRequest.self, context: context)
        let configuration = body.configuration?.settings ?? .default
        try configuration.validate()
        let webhook = try body.configuration?.webhook?.validate(field: "configuration.webhook")
        if let webhook { try await destinations.vet(webhook.url, field: "configuration.webhook.url") }
        if let proxy = configuration.proxy { try await destinations.vet(proxy.location, field: "configuration.proxy") }
        let creation = try await sessions.createOrReconnect(
            identifier: identifier,
            tenantID: context.tenantID,
            configuration: configuration,
            webhook: webhook
        )
        return EditedResponse(
            status: creation.created ? .created : .ok,
            response: try await response(for: creation.session, revealing: creation.generatedSecret)
        )
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> Page<SessionResponse> {
        let limit = try request.pageLimit()
        let cursor = try request.integerQuery("cursor", in: 0...Int.max) ?? 0
        let allTenants = request.uri.queryParameters.get("allTenants") == "true"
        guard !allTenants || context.principal?.admin == true else {
            throw Problem(.forbidden, detail: "Only admin keys may list across tenants.")
        }
        let page = try await sessions.list(after: Int64(cursor), limit: limit, tenantID: allTenants ? nil : context.tenantID)
        let details = try await sessions.details(sessionIDs: page.map(\.rowID))
        let now = clock.now
        return Page(
            items: page.map { SessionResponse($0, details: details[$0.rowID] ?? .init(), now: now) },
            nextCursor: page.count == limit ? page.last.map { String($0.rowID) } : nil
        )
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> SessionResponse {
        let identifier = context.parameters.get("identifier") ?? ""
        let (session, details) = try await sessions.sessionWithDetails(identifier: identifier, tenantID: context.tenantID)
        return SessionResponse(session, details: details, now: clock.now)
    }

    @Sendable func update(request: Request, context: AppRequestContext) async throws -> SessionResponse {
        let body = try await request.decode(as: UpdateSessionRequest.self, context: context)
        return try await response(for: try await sessions.update(sessionID: context.session.rowID, body.change))
    }

    @Sendable func invalidate(request: Request, context: AppRequestContext) async throws -> SessionResponse {
        let body = try await request.decode(as: InvalidateRequest.self, context: context)
        let invalidated = try await sessions.invalidate(sessionID: context.session.rowID, cancelTasks: body.cancelTasks ?? false)
        return try await response(for: invalidated)
    }

    @Sendable func remove(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        try await sessions.delete(sessionID: context.session.rowID)
        return .noContent
    }

    private func response(for session: Session, revealing secret: WebhookSecret? = nil) async throws -> SessionResponse {
        let details = try await sessions.details(sessionIDs: [session.rowID])
        return SessionResponse(session, details: details[session.rowID] ?? .init(), revealing: secret, now: clock.now)
    }
}
