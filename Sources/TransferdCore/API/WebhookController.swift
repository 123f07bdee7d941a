import Foundation
import Hummingbird

/// `/v1/sessions/{identifier}/webhook`: the session's subscriber, its secret, and a test delivery.
struct WebhookController: Sendable {
    let sessions: SessionStore
    let webhooks: WebhookStore
    let destinations: DestinationGuard

    struct RotateRequest: Decodable {
        var secret: String?
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get(use: show)
        group.put(use: set)
        group.delete(use: remove)
        group.post("rotate-secret", use: rotate)
        group.post("test", use: test)
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> WebhookResponse {
        let session = try await sessions.session(of: context)
        return WebhookResponse(try await webhooks.subscription(sessionID: session.rowID))
    }

    @Sendable func set(request: Request, context: AppRequestContext) async throws -> EditedResponse<WebhookResponse> {
        let session = try await sessions.session(of: context)
        let body = try await request.decode(as: WebhookRequest.self, context: context).validate(field: "webhook")
        try await destinations.vet(body.url, field: "webhook.url")
        let (subscription, generated, created) = try await webhooks.set(body, sessionID: session.rowID)
        return EditedResponse(status: created ? .created : .ok, response: WebhookResponse(subscription, revealing: generated))
    }

    @Sendable func remove(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let session = try await sessions.session(of: context)
        try await webhooks.remove(sessionID: session.rowID)
        return .noContent
    }

    @Sendable func rotate(request: Request, context: AppRequestContext) async throws -> WebhookResponse {
        let session = try await sessions.session(of: context)
        let body = try await request.decode(as: RotateRequest.self, context: context)
        var secret: WebhookSecret?
        if let text = body.secret {
            guard let parsed = WebhookSecret(text) else {
                throw Problem.invalidField("secret", "must be `whsec_` followed by the base64 of 24 to 64 bytes")
            }
            secret = parsed
        }
        let (subscription, newSecret) = try await webhooks.rotateSecret(sessionID: session.rowID, to: secret)
        return WebhookResponse(subscription, revealing: newSecret)
    }

    @Sendable func test(request: Request, context: AppRequestContext) async throws -> EditedResponse<DeliveryResponse> {
        let session = try await sessions.session(of: context)
        let delivery = try await webhooks.sendTest(sessionID: session.rowID)
        return EditedResponse(status: .accepted, response: DeliveryResponse(delivery, attempts: []))
    }
}
