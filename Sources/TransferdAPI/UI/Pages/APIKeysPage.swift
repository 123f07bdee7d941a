import Foundation
import Hummingbird
import TransferdDomain
import TransferdServices

/// `/ui/keys`, for admin keys only: every API key (never a secret), a form that issues one, shown once, and
/// revocation, as `transferd keys` does on the command line.
struct APIKeysPage: Sendable {
    let gate: DashboardGate
    let keys: APIKeyService

    /// The page's routes, relative to `/ui`.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("keys", use: gate.page { _, _, signedIn in try await page(signedIn) })
        routes.post("keys", use: gate.action(CreateForm.self, create))
        routes.post("keys/:keyID/revoke", use: gate.action(RevokeForm.self, revoke))
        return routes
    }

    /// The form that issues a key.
    struct CreateForm: Decodable, Sendable {
        var name: String?
        var tenant: String?
        var admin: String?
    }

    /// The revoke form: nothing but its CSRF token.
    struct RevokeForm: Decodable, Sendable {}

    /// The keys, with the one just issued (its token) when there is one.
    private func page(_ signedIn: DashboardSignIn, created: [String: Any]? = nil) async throws -> Response {
        try Self.requireAdmin(signedIn)
        let rows: [[String: Any]] = try await keys.list().map { key in
            var row: [String: Any] = [
                "id": key.id, "name": key.name, "tenant": key.tenant, "admin": key.admin, "active": key.revokedAt == nil,
                "own": key.id == signedIn.principal.keyID, "created": DisplayFormat.timeValues(key.createdAt),
            ]
            row["revoked"] = key.revokedAt.map(DisplayFormat.timeValues)
            return row
        }
        var values: [String: Any] = ["keys": rows]
        values["created"] = created
        return gate.pages.render(
            "keys",
            .init(title: "API keys", signedIn: signedIn),
            values,
            status: created == nil ? .ok : .created
        )
    }

    /// Issues a key and shows it, this once.
    @Sendable func create(form: CreateForm, context: AppRequestContext, signedIn: DashboardSignIn) async throws -> Response {
        try Self.requireAdmin(signedIn)
        let name = form.name?.trimmingCharacters(in: .whitespaces) ?? ""
        let tenant = form.tenant?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !name.isEmpty, name.utf8.count <= 200 else { throw Problem.invalidField("name", "is required: 1 to 200 bytes") }
        guard !tenant.isEmpty, tenant.utf8.count <= 200 else { throw Problem.invalidField("tenant", "is required: 1 to 200 bytes") }
        let admin = form.admin == "on"
        let token = try await keys.create(name: name, tenant: tenant, admin: admin)
        let created: [String: Any] = ["token": token, "name": name, "tenant": tenant, "admin": admin]
        return try await page(signedIn, created: created)
    }

    @Sendable func revoke(form: RevokeForm, context: AppRequestContext, signedIn: DashboardSignIn) async throws -> Response {
        try Self.requireAdmin(signedIn)
        let id = context.parameters.get("keyID") ?? ""
        guard try await keys.revoke(id: id) else { throw Problem.notFound("No active key has the id `\(id)`.") }
        return .seeOther("/ui/keys")
    }

    private static func requireAdmin(_ signedIn: DashboardSignIn) throws(Problem) {
        guard signedIn.principal.admin else {
            throw Problem(.forbidden, detail: "Only an admin key can manage API keys.")
        }
    }
}
