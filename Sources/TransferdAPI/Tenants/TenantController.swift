import Hummingbird
import TransferdServices

/// `/v1/tenant`: the requesting key's tenant, its quotas and what it holds.
struct TenantController: Sendable {
    let tenants: TenantService

    /// The controller's routes, relative to where the router mounts them.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get { _, context in TenantResponse(try await tenants.standing(id: context.tenantID)) }
        return routes
    }
}
