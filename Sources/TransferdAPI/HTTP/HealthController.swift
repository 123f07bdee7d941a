import Hummingbird
import TransferdDomain
import TransferdServices

/// `/healthz` (the process answers) and `/readyz` (the database answers too).
struct HealthController: Sendable {
    let readiness: Readiness

    /// The body of both probes.
    struct Status: ResponseCodable {
        var status: String
    }

    /// The controller's routes, relative to where the router mounts them.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("healthz") { _, _ in Status(status: "ok") }
        routes.get("readyz") { _, _ in
            guard await readiness.isReady() else {
                throw Problem(.notReady, detail: "The database does not answer.")
            }
            return Status(status: "ready")
        }
        return routes
    }
}
