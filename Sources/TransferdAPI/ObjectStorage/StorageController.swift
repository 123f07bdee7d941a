import Hummingbird
import TransferdDomain
import TransferdServices

/// `/v1/storage`: the tenant's S3-compatible stores, which downloads write into and uploads read from.
struct StorageController: Sendable {
    let storages: ObjectStorageService
    let destinations: DestinationVetting

    /// The controller's routes, relative to where the router mounts them.
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get(use: list)
        routes.put(":name", use: put)
        routes.get(":name", use: show)
        routes.delete(":name", use: remove)
        return routes
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> StorageListResponse {
        StorageListResponse(storages: try await storages.list(tenantID: context.tenantID).map(StorageResponse.init))
    }

    @Sendable func put(request: Request, context: AppRequestContext) async throws -> EditedResponse<StorageResponse> {
        let name = try context.parameters.require("name")
        let settings = try await request.decode(as: StorageRequest.self, context: context).validate()
        try await destinations.vet(settings.endpoint, field: "endpoint")
        let (storage, created) = try await storages.put(name: name, settings: settings, tenantID: context.tenantID)
        return EditedResponse(status: created ? .created : .ok, response: StorageResponse(storage))
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> StorageResponse {
        StorageResponse(try await storages.find(name: try context.parameters.require("name"), tenantID: context.tenantID))
    }

    @Sendable func remove(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        try await storages.remove(name: try context.parameters.require("name"), tenantID: context.tenantID)
        return .noContent
    }
}
