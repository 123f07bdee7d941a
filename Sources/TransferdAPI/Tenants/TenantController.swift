import Hummingbird
import TransferdServices

/// `/v1/tenant`: the requesting key's tenant, its quotas and what it holds.
struct TenantController: Sendable {
    let tenants: TenantService

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get { _, context in TenantResponse(try await tenants.standing(id: context.tenantID)) }
    }
}
