import Foundation
import Hummingbird

/// `/v1/sessions`: create-or-reconnect, read, list and invalidate sessions.
struct SessionsController: Sendable {
    let sessions: SessionStore
    let lifecycle: TaskLifecycle
    let destinations: DestinationGuard
    let idempotency: IdempotencyStore

    /// A session as the API shows it, with its webhook's acknowledgement record.
    struct SessionResponse: ResponseCodable, Sendable {
        /// The session's configuration, with its webhook (whose secret shows only in the response that made it).
        struct ConfigurationView: Codable, Sendable {
            var settings: SessionConfiguration
            var webhook: WebhookResponse?

            enum CodingKeys: String, CodingKey {
                case webhook
            }

            init(settings: SessionConfiguration, webhook: WebhookResponse?) {
                self.settings = settings
                self.webhook = webhook
            }

            init(from decoder: any Decoder) throws {
                settings = try SessionConfiguration(from: decoder)
                webhook = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(WebhookResponse.self, forKey: .webhook)
            }

            func encode(to encoder: any Encoder) throws {
                var shown = settings
                shown.httpAdditionalHeaders = Redaction.headers(settings.httpAdditionalHeaders)
                try shown.encode(to: encoder)
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(webhook, forKey: .webhook)
            }
        }

        var identifier: String
        /// The tenant the session belongs to.
        var tenant: String
        var state: Session.State
        var configuration: ConfigurationView
        var taskCounts: [String: Int]
        /// Bytes the session's tasks keep on disk.
        var storedBytes: Int64
        var lastAcknowledgedSequence: Int64
        var pendingDeliveries: Int
        var webhookState: WebhookSubscription.State?
        var createdAt: Date
        var invalidatedAt: Date?

        init(_ session: Session, details: SessionStore.Details, revealing secret: WebhookSecret? = nil) {
            identifier = session.identifier
            tenant = details.tenant
            state = session.state
            configuration = ConfigurationView(
                settings: session.configuration,
                webhook: details.webhook.map { WebhookResponse($0, revealing: secret) }
            )
            taskCounts = Dictionary(uniqueKeysWithValues: TaskState.allCases.map { ($0.rawValue, details.taskCounts[$0] ?? 0) })
            storedBytes = details.storedBytes
            lastAcknowledgedSequence = session.lastAcknowledgedSequence
            pendingDeliveries = details.pendingDeliveries
            webhookState = details.webhook?.state
            createdAt = session.createdAt
            invalidatedAt = session.invalidatedAt
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(identifier, forKey: .identifier)
            try container.encode(tenant, forKey: .tenant)
            try container.encode(state, forKey: .state)
            try container.encode(configuration, forKey: .configuration)
            try container.encode(taskCounts, forKey: .taskCounts)
            try container.encode(storedBytes, forKey: .storedBytes)
            try container.encode(lastAcknowledgedSequence, forKey: .lastAcknowledgedSequence)
            try container.encode(pendingDeliveries, forKey: .pendingDeliveries)
            try container.encode(webhookState, forKey: .webhookState)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encodeIfPresent(invalidatedAt, forKey: .invalidatedAt)
        }
    }

    /// The body of `PUT /v1/sessions/{identifier}`: the configuration, optionally with a webhook.
    struct CreateSessionRequest: Decodable {
        struct ConfigurationRequest: Decodable {
            var settings: SessionConfiguration
            var webhook: WebhookRequest?

            enum CodingKeys: String, CodingKey {
                case webhook
            }

            init(from decoder: any Decoder) throws {
                settings = try SessionConfiguration(from: decoder)
                webhook = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(WebhookRequest.self, forKey: .webhook)
            }
        }

        var configuration: ConfigurationRequest?
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
        try ClientIdentifier.validate(identifier, field: "identifier")
        let body = try await request.decode(as: CreateSessionRequest.self, context: context)
        let configuration = body.configuration?.settings ?? .default
        try configuration.validate()
        let webhook = try body.configuration?.webhook?.validate(field: "configuration.webhook")
        if let webhook { try await destinations.vet(webhook.url, field: "configuration.webhook.url") }
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
            throw Problem(status: .forbidden, slug: "forbidden", title: "Forbidden", detail: "Only admin keys may list across tenants.")
        }
        let page = try await sessions.list(after: Int64(cursor), limit: limit, tenantID: allTenants ? nil : context.tenantID)
        let details = try await sessions.details(sessionIDs: page.map(\.rowID))
        return Page(
            items: page.map { SessionResponse($0, details: details[$0.rowID] ?? .init()) },
            nextCursor: page.count == limit ? page.last.map { String($0.rowID) } : nil
        )
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> SessionResponse {
        try await response(for: sessions.session(of: context))
    }

    @Sendable func invalidate(request: Request, context: AppRequestContext) async throws -> Response {
        let session = try await sessions.session(of: context)
        return try await idempotency.once(request, context: context) { request in
            let body = try await request.decode(as: InvalidateRequest.self, context: context)
            let invalidated = try await lifecycle.invalidate(sessionID: session.rowID, cancelTasks: body.cancelTasks ?? false)
            return try BufferedResponse(status: .ok, json: try await response(for: invalidated), context: context)
        }
    }

    private func response(for session: Session, revealing secret: WebhookSecret? = nil) async throws -> SessionResponse {
        let details = try await sessions.details(sessionIDs: [session.rowID])
        return SessionResponse(session, details: details[session.rowID] ?? .init(), revealing: secret)
    }
}
