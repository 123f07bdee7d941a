import Hummingbird

/// `/healthz` (the process answers) and `/readyz` (the database answers too).
struct HealthController: Sendable {
    let database: AppDatabase

    /// The body of both probes.
    struct Status: ResponseCodable {
        var status: String
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("healthz") { _, _ in Status(status: "ok") }
        router.get("readyz") { _, _ in
            guard await database.isReachable() else {
                throw Problem(status: .serviceUnavailable, slug: "not-ready", title: "Not ready", detail: "The database does not answer.")
            }
            return Status(status: "ready")
        }
    }
}
