import Hummingbird
import TransferdDomain
import TransferdServices

/// Resolves the session that a `/v1/sessions/{identifier}/…` route names, once, among the requesting tenant's
/// sessions, and puts it in the request context; a session that does not exist (or is another tenant's) is a 404.
/// A route that needs only the session's row id and configuration takes it as found a few seconds ago at most
/// (`known`).
struct SessionMiddleware: RouterMiddleware {
    let sessions: SessionService
    var known = false

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        let (identifier, tenantID) = (context.parameters.get("identifier") ?? "", context.tenantID)
        context.resolvedSession =
            if known {
                try await sessions.knownSession(identifier: identifier, tenantID: tenantID)
            } else {
                try await sessions.session(identifier: identifier, tenantID: tenantID)
            }
        return try await next(request, context)
    }
}
