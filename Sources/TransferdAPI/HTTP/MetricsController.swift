import Hummingbird
import NIOCore
import TransferdDomain
import TransferdServices

/// `GET /metrics`: the service's metrics in Prometheus's text format, sampled afresh, for admin keys (Prometheus's
/// `authorization` scrape setting).
struct MetricsController: Sendable {
    let metrics: ServiceMetrics
    let sampler: MetricsSampler

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("metrics", use: scrape)
    }

    @Sendable func scrape(request: Request, context: AppRequestContext) async throws -> Response {
        guard context.principal?.admin == true else {
            throw Problem(status: .forbidden, slug: "forbidden", title: "Forbidden", detail: "Metrics need an admin API key.")
        }
        await sampler.sample()
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition()))
        )
    }
}
