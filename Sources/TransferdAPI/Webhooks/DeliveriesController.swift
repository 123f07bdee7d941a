import Foundation
import Hummingbird
import TransferdDomain
import TransferdServices

/// `/v1/sessions/{identifier}/deliveries`: inspect webhook deliveries and send them again; `/v1/deliveries/recover`
/// for every session of the tenant.
struct DeliveriesController: Sendable {
    let webhooks: WebhookService

    /// The answer of `retry-failed`: how many deliveries went back in the queue.
    struct RetryResult: ResponseEncodable {
        var retried: Int
    }

    /// What `recover` takes: the time from which dead-lettered deliveries go again (by their event's time).
    struct RecoverRequest: Decodable {
        var since: Date
    }

    /// The answer of `recover`: how many deliveries went back in the queue.
    struct RecoverResult: ResponseEncodable {
        var recovered: Int
    }

    /// The controller's routes for one session, relative to where the router mounts them.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get(use: list)
        routes.get(":deliveryID", use: show)
        routes.post(":deliveryID/retry", use: retry)
        routes.post("retry-failed", use: retryFailed)
        routes.post("recover") { request, context in try await recover(.session(context.session.rowID), request, context) }
        return routes
    }

    /// The routes for every session of the caller's tenant.
    var tenantEndpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.post("recover") { request, context in try await recover(.tenant(context.tenantID), request, context) }
        return routes
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> Page<DeliveryResponse> {
        let limit = try request.pageLimit()
        let cursor = try request.integerQuery("cursor", in: 0...Int.max) ?? 0
        let status = try request.uri.queryParameters.get("status").map { text throws(Problem) in
            guard let status = Delivery.Status(rawValue: text) else {
                throw Problem.invalidField("status", "must be one of \(Delivery.Status.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return status
        }
        let page = try await webhooks.deliveries(sessionID: context.session.rowID, after: Int64(cursor), status: status, limit: limit)
            .map { DeliveryResponse($0, attempts: $1) }
        return Page(items: page, nextCursor: page.count == limit ? page.last.map { String($0.id) } : nil)
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> DeliveryResponse {
        let (delivery, attempts) = try await webhooks.delivery(sessionID: context.session.rowID, id: try context.parameters.deliveryID())
        return DeliveryResponse(delivery, attempts: attempts)
    }

    @Sendable func retry(request: Request, context: AppRequestContext) async throws -> DeliveryResponse {
        let retried = try await webhooks.retry(sessionID: context.session.rowID, deliveryID: try context.parameters.deliveryID())
        return DeliveryResponse(retried[0], attempts: [])
    }

    private func recover(_ scope: DeliveryScope, _ request: Request, _ context: AppRequestContext) async throws -> RecoverResult {
        let since = try await request.decode(as: RecoverRequest.self, context: context).since
        return RecoverResult(recovered: try await webhooks.recover(scope, since: since))
    }

    @Sendable func retryFailed(request: Request, context: AppRequestContext) async throws -> RetryResult {
        RetryResult(retried: try await webhooks.retry(sessionID: context.session.rowID, deliveryID: nil).count)
    }
}
