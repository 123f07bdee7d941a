import Foundation
import GRDB
import Hummingbird

/// `/v1/sessions/{identifier}/deliveries`: inspect webhook deliveries and send them again.
struct DeliveriesController: Sendable {
    let sessions: SessionStore
    let webhooks: WebhookStore

    /// The answer of `retry-failed`: how many deliveries went back in the queue.
    struct RetryResult: ResponseCodable {
        var retried: Int
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get(use: list)
        group.post(":deliveryID/retry", use: retry)
        group.post("retry-failed", use: retryFailed)
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> Page<DeliveryResponse> {
        let session = try await sessions.session(of: context)
        let limit = try request.pageLimit()
        let cursor = try request.integerQuery("cursor", in: 0...Int.max) ?? 0
        var filter = Delivery.Columns.sessionId == session.rowID && Column("id") > cursor
        if let statusText = request.uri.queryParameters.get("status") {
            guard let status = Delivery.Status(rawValue: statusText) else {
                throw Problem.invalidField("status", "must be one of \(Delivery.Status.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            filter = filter && Delivery.Columns.status == status.rawValue
        }
        let page = try await webhooks.database.pool.read { [filter] db in
            let deliveries = try Delivery.filter(filter).order(Column("id")).limit(limit).fetchAll(db)
            let attempts = try DeliveryAttempt.filter(deliveries.map(\.rowID).contains(Column("delivery_id"))).order(Column("id")).fetchAll(
                db
            )
            let byDelivery = Dictionary(grouping: attempts, by: \.deliveryId)
            return deliveries.map { DeliveryResponse($0, attempts: byDelivery[$0.rowID] ?? []) }
        }
        return Page(items: page, nextCursor: page.count == limit ? page.last.map { String($0.id) } : nil)
    }

    @Sendable func retry(request: Request, context: AppRequestContext) async throws -> DeliveryResponse {
        let session = try await sessions.session(of: context)
        guard let text = context.parameters.get("deliveryID"), let deliveryID = Int64(text), deliveryID > 0 else {
            throw Problem.invalidField("deliveryID", "must be a positive integer")
        }
        let retried = try await webhooks.retry(sessionID: session.rowID, deliveryID: deliveryID)
        return DeliveryResponse(retried[0], attempts: [])
    }

    @Sendable func retryFailed(request: Request, context: AppRequestContext) async throws -> RetryResult {
        let session = try await sessions.session(of: context)
        return RetryResult(retried: try await webhooks.retry(sessionID: session.rowID, deliveryID: nil).count)
    }
}
