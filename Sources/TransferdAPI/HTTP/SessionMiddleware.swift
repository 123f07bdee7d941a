import Hummingbird
import TransferdDomain
import TransferdServices

/// Resolves the session that a `/v1/sessions/{identifier}/…` route names, once, among the requesting tenant's
/// sessions, and puts it in the request context; a session that does not exist (or is another tenant's) is a 404.
struct SessionMiddleware: RouterMiddleware {
    let sessions: SessionService

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.resolvedSession = try await sessions.session(
            identifier: context.parameters.get("identifier") ?? "",
            tenantID: context.tenantID
        )
        return try await next(request, context)
    }
}
