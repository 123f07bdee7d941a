import Hummingbird
import TransferdServices

/// Counts and times every request by method, route template (never the raw path) and status: the outermost
/// middleware, so that it sees the status a problem was answered with too.
struct MetricsMiddleware: RouterMiddleware {
    let metrics: ServiceMetrics

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, status: Int(response.status.code), since: started)
            return response
        } catch {
            record(request, context, status: Int((error as? any HTTPResponseError)?.status.code ?? 500), since: started)
            throw error
        }
    }

    private func record(_ request: Request, _ context: AppRequestContext, status: Int, since started: ContinuousClock.Instant) {
        let route = context.endpointPath ?? "unmatched"
        metrics.answered(method: request.method.rawValue, route: route, status: status, after: .now - started)
    }
}
