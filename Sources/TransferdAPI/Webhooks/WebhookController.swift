import Foundation
import Hummingbird
import TransferdDomain
import TransferdServices

/// `/v1/sessions/{identifier}/webhook`: the session's subscriber, its secret, its endpoint turned back on, and a test
/// delivery.
struct WebhookController: Sendable {
    let webhooks: WebhookService
    let destinations: DestinationVetting
    let clock: any WallClock

    struct RotateRequest: Decodable {
        var secret: String?
    }

    /// The controller's routes, relative to where the router mounts them.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get(use: show)
        routes.put(use: set)
        routes.delete(use: remove)
        routes.post("rotate-secret", use: rotate)
        routes.post("test", use: test)
        routes.post("enable", use: enable)
        return routes
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> WebhookResponse {
        WebhookResponse(try await webhooks.subscription(sessionID: context.session.rowID), now: clock.now)
    }

    @Sendable func set(request: Request, context: AppRequestContext) async throws -> EditedResponse<WebhookResponse> {
        let settings = try await request.decode(as: WebhookRequest.self, context: context).validate(field: "webhook")
        try await destinations.vet(settings.url, field: "webhook.url")
        let setting = try await webhooks.set(settings, sessionID: context.session.rowID)
        return EditedResponse(
            status: setting.created ? .created : .ok,
            response: WebhookResponse(setting.subscription, revealing: setting.generated, now: clock.now)
        )
    }

    @Sendable func remove(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        try await webhooks.remove(sessionID: context.session.rowID)
        return .noContent
    }

    @Sendable func rotate(request: Request, context: AppRequestContext) async throws -> WebhookResponse {
        let body = try await request.decode(as: RotateRequest.self, context: context)
        let secret = try body.secret.map { text throws(Problem) in
            guard let secret = WebhookSecret(text) else {
                throw Problem.invalidField("secret", "must be `whsec_` followed by the base64 of 24 to 64 bytes")
            }
            return secret
        }
        let (subscription, newSecret) = try await webhooks.rotateSecret(sessionID: context.session.rowID, to: secret)
        return WebhookResponse(subscription, revealing: newSecret, now: clock.now)
    }

    @Sendable func enable(request: Request, context: AppRequestContext) async throws -> WebhookResponse {
        WebhookResponse(try await webhooks.enable(sessionID: context.session.rowID), now: clock.now)
    }

    @Sendable func test(request: Request, context: AppRequestContext) async throws -> EditedResponse<DeliveryResponse> {
        let delivery = try await webhooks.sendTest(sessionID: context.session.rowID)
        return EditedResponse(status: .accepted, response: DeliveryResponse(delivery, attempts: []))
    }
}
