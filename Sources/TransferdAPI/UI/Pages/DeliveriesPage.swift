import Foundation
import Hummingbird
import TransferdDomain
import TransferdServices

/// `/ui/sessions/{identifier}/deliveries`: the session's webhook with its endpoint's health and event filter, its
/// deliveries with their attempts (filtered by status), the replay of one delivery, of every failed one or of those
/// since a time (recover), and the endpoint turned back on.
struct DeliveriesPage: Sendable {
    let gate: DashboardGate
    let sessions: SessionService
    let webhooks: WebhookService

    /// How many deliveries the page lists; the API pages through them all.
    static let limit = 500

    /// The page's routes, relative to `/ui`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("sessions/:identifier/deliveries", use: gate.sessionPage(page))
        routes.post("sessions/:identifier/deliveries/:deliveryID/replay", use: gate.sessionAction(ActionForm.self, replayOne))
        routes.post("sessions/:identifier/deliveries/replay-failed", use: gate.sessionAction(ActionForm.self, replayFailed))
        routes.post("sessions/:identifier/deliveries/recover", use: gate.sessionAction(RecoverForm.self, recover))
        routes.post("sessions/:identifier/webhook/enable", use: gate.sessionAction(ActionForm.self, enable))
        return routes
    }

    /// An action's form; `back` is the page to return to.
    struct ActionForm: Decodable, Sendable {
        var back: String?
    }

    /// The recover form: the failed deliveries of events of the last `hours` go again.
    struct RecoverForm: Decodable, Sendable {
        var back: String?
        var hours: Int
    }

    @Sendable func page(request: Request, context: AppRequestContext, signedIn: DashboardSignIn, session: Session) async throws -> Response
    {
        let status = request.uri.queryParameters.get("status").flatMap(Delivery.Status.init(rawValue:))
        let deliveries = try await webhooks.deliveries(sessionID: session.rowID, after: 0, status: status, limit: Self.limit)
        let webhook = try await sessions.details(sessionIDs: [session.rowID])[session.rowID]?.webhook
        let base = "/ui/sessions/\(session.identifier)"
        let back = "\(base)/deliveries" + (status.map { "?status=\($0.rawValue)" } ?? "")
        let filters: [[String: Any]] = ([nil] + Delivery.Status.allCases).map { filter in
            [
                "label": filter?.rawValue ?? "all", "current": filter == status,
                "link": "\(base)/deliveries" + (filter.map { "?status=\($0.rawValue)" } ?? ""),
            ]
        }
        let rows: [[String: Any]] = deliveries.map { delivery, attempts in
            var row: [String: Any] = [
                "id": delivery.rowID, "sequence": delivery.sequence, "type": delivery.eventType.rawValue,
                "status": delivery.status.rawValue, "attemptCount": delivery.attemptCount,
                "replay": "\(base)/deliveries/\(delivery.rowID)/replay", "canReplay": delivery.status == .failed,
                "attempts": attempts.map { attempt in
                    [
                        "time": DisplayFormat.timeValues(attempt.attemptedAt),
                        "outcome": attempt.statusCode.map { "HTTP \($0)" } ?? attempt.error ?? "no answer",
                        "latency": "\(attempt.latencyMs) ms",
                        "probe": attempt.probe,
                        "reply": attempt.reply as Any,
                    ] as [String: Any]
                },
            ]
            if let task = delivery.taskIdentifier { row["task"] = ["identifier": task, "link": "\(base)/tasks/\(task)"] }
            if delivery.status == .pending { row["next"] = DisplayFormat.timeValues(delivery.nextAttemptAt) }
            row["lastError"] = delivery.lastError
            return row
        }
        var values: [String: Any] = [
            "identifier": session.identifier, "base": base, "back": back, "tabDeliveries": true, "filters": filters,
            "deliveries": rows, "hasDeliveries": !rows.isEmpty,
        ]
        values["webhook"] = WebhookSummary.values(webhook)
        return gate.pages.render("deliveries", .init(title: "Deliveries · \(session.identifier)", signedIn: signedIn), values)
    }

    @Sendable func replayOne(
        form: ActionForm,
        context: AppRequestContext,
        signedIn: DashboardSignIn,
        session: Session
    ) async throws
        -> Response
    {
        try await replay(try context.parameters.deliveryID(), form, session)
    }

    @Sendable func replayFailed(
        form: ActionForm,
        context: AppRequestContext,
        signedIn: DashboardSignIn,
        session: Session
    ) async throws
        -> Response
    {
        try await replay(nil, form, session)
    }

    /// Sends again the failed deliveries of the last `hours` (at most a year), then goes back.
    @Sendable func recover(
        form: RecoverForm,
        context: AppRequestContext,
        signedIn: DashboardSignIn,
        session: Session
    ) async throws -> Response {
        guard (1...8_760).contains(form.hours) else { throw Problem.invalidField("hours", "must be from 1 to 8760") }
        let since = gate.clock.now.addingTimeInterval(-Double(form.hours) * 3600)
        _ = try await webhooks.recover(.session(session.rowID), since: since)
        return .seeOther(DashboardPath.back(form.back, otherwise: "/ui/sessions/\(session.identifier)/deliveries"))
    }

    /// Turns the session's subscriber's endpoint back on, then goes back.
    @Sendable func enable(
        form: ActionForm,
        context: AppRequestContext,
        signedIn: DashboardSignIn,
        session: Session
    ) async throws -> Response {
        _ = try await webhooks.enable(sessionID: session.rowID)
        return .seeOther(DashboardPath.back(form.back, otherwise: "/ui/sessions/\(session.identifier)/deliveries"))
    }

    /// Queues delivery `deliveryID` again (every failed one when nil), then goes back.
    private func replay(_ deliveryID: Int64?, _ form: ActionForm, _ session: Session) async throws -> Response {
        _ = try await webhooks.retry(sessionID: session.rowID, deliveryID: deliveryID)
        return .seeOther(DashboardPath.back(form.back, otherwise: "/ui/sessions/\(session.identifier)/deliveries"))
    }
}
