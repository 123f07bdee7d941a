import Foundation
import HTTPTypes
import Hummingbird
import TransferdDomain
import TransferdServices

/// `/v1/sessions/{identifier}/fetches`: background fetch, recurring conditional downloads of a URL, and the latest
/// version's content.
struct FetchesController: Sendable {
    let fetches: FetchService
    let admission: TaskAdmission
    let content: TaskContentController

    /// The controller's routes, creation behind `idempotency`, relative to where the router mounts them.
    func endpoints(idempotency: IdempotencyMiddleware) -> RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.group().add(middleware: idempotency).post(use: create)
        routes.get(use: list)
        routes.get(":fetchID", use: show)
        routes.patch(":fetchID", use: update)
        routes.delete(":fetchID", use: remove)
        routes.get(":fetchID/content") { try await serve($0, $1, includeBody: true) }
        routes.head(":fetchID/content") { try await serve($0, $1, includeBody: false) }
        return routes
    }

    @Sendable func create(request: Request, context: AppRequestContext) async throws -> EditedResponse<FetchResponse> {
        let body = try await request.decode(as: CreateFetchRequest.self, context: context)
        let schedule = try await Self.schedule(body, in: context.session, fetches: fetches, admission: admission)
        return EditedResponse(status: .created, response: FetchResponse(schedule))
    }

    /// Checks a new schedule's fields and vets its URL and destination as a download's, then stores it: the way in for
    /// the API and the dashboard's form alike.
    static func schedule(
        _ body: CreateFetchRequest,
        in session: Session,
        fetches: FetchService,
        admission: TaskAdmission
    ) async throws
        -> FetchSchedule
    {
        let new = try body.validate()
        try await admission.vet(url: new.request.url, destination: new.destination, session: session)
        return try await fetches.create(new, in: session)
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> Page<FetchResponse> {
        Page(items: try await fetches.list(sessionID: context.session.rowID).map(FetchResponse.init), nextCursor: nil)
    }

    @Sendable func show(request: Request, context: AppRequestContext) async throws -> FetchResponse {
        FetchResponse(try await fetches.find(try fetchID(context), sessionID: context.session.rowID))
    }

    @Sendable func update(request: Request, context: AppRequestContext) async throws -> FetchResponse {
        let change = try await request.decode(as: UpdateFetchRequest.self, context: context).validate()
        return FetchResponse(try await fetches.update(try fetchID(context), sessionID: context.session.rowID, change))
    }

    @Sendable func remove(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        try await fetches.delete(try fetchID(context), sessionID: context.session.rowID)
        return .noContent
    }

    /// The latest version's content, its ETag the SHA-256.
    private func serve(_ request: Request, _ context: AppRequestContext, includeBody: Bool) async throws -> Response {
        let task = try await fetches.latestVersion(of: try fetchID(context), sessionID: context.session.rowID)
        return try await content.serve(task, request, context, includeBody: includeBody)
    }

    private func fetchID(_ context: AppRequestContext) throws(DomainError) -> String {
        try ClientIdentifier.validate(context.parameters.get("fetchID") ?? "", field: "fetchID")
    }
}
