import Hummingbird
import NIOCore
import TransferdDomain
import TransferdServices

/// `GET /metrics`: the service's metrics in Prometheus's text format, sampled afresh, for admin keys (Prometheus's
/// `authorization` scrape setting); or on a listener of their own (`--metrics-port`) for anyone who reaches it.
package struct MetricsController: Sendable {
    let metrics: ServiceMetrics
    let sampler: MetricsSampler

    package init(metrics: ServiceMetrics, sampler: MetricsSampler) {
        self.metrics = metrics
        self.sampler = sampler
    }

    /// The controller's routes, relative to where the router mounts them.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("metrics") { _, context in
            guard context.principal?.admin == true else {
                throw Problem(.forbidden, detail: "Metrics need an admin API key.")
            }
            return await scrape()
        }
        return routes
    }

    /// The router of a listener that serves only the metrics, without authentication: for a port that only the
    /// monitoring network reaches.
    package func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("metrics") { _, _ in await scrape() }
        return router
    }

    private func scrape() async -> Response {
        await sampler.sample()
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition()))
        )
    }
}
