import Foundation
import Hummingbird
import TransferdDomain
import TransferdServices

/// How every dashboard route meets its visitor. A page with data needs someone signed in (anyone else goes to the
/// sign-in page); a form that changes state also needs the session's CSRF token; and a refusal, the API's problem,
/// becomes a page that shows its `detail`, with its status.
struct DashboardGate: Sendable {
    let dashboard: DashboardSessionService
    let sessions: SessionService
    let pages: DashboardPages
    let contentLinks: ContentLinks
    let clock: any WallClock

    typealias Handler = @Sendable (Request, AppRequestContext) async throws -> Response

    /// A link to the content at `path` that the signed-in person's browser may follow for a few minutes: content is
    /// never opened by the cookie.
    func contentLink(_ path: String, for signedIn: DashboardSignIn) -> String {
        contentLinks.link(to: path, keyID: signedIn.principal.keyID, now: clock.now)
    }

    /// A page for whoever is signed in.
    func page(_ body: @escaping @Sendable (Request, AppRequestContext, DashboardSignIn) async throws -> Response) -> Handler {
        { [self] request, context in
            guard let signedIn = try await DashboardSignIn.of(request, dashboard) else { return .seeOther("/ui/sign-in") }
            do {
                return try await body(request, context, signedIn)
            } catch let error as DomainError {
                return refusal(Problem(error), signedIn: signedIn)
            } catch let problem as Problem {
                return refusal(problem, signedIn: signedIn)
            }
        }
    }

    /// A page of one of the signed-in tenant's sessions (`:identifier`); another tenant's session is not found, as
    /// on the API.
    func sessionPage(
        _ body: @escaping @Sendable (Request, AppRequestContext, DashboardSignIn, Session) async throws -> Response
    ) -> Handler {
        page { [sessions] request, context, signedIn in
            let identifier = context.parameters.get("identifier") ?? ""
            let session = try await sessions.session(identifier: identifier, tenantID: signedIn.principal.tenantID)
            return try await body(request, context, signedIn, session)
        }
    }

    /// A form of one of the tenant's sessions that changes state: its fields, once its CSRF token is checked.
    func sessionAction<Form: Decodable & Sendable>(
        _ form: Form.Type,
        _ body: @escaping @Sendable (Form, AppRequestContext, DashboardSignIn, Session) async throws -> Response
    ) -> Handler {
        sessionPage { request, context, signedIn, session in
            try await body(try await DashboardForm.read(form, from: request, signedIn: signedIn), context, signedIn, session)
        }
    }

    /// A form that changes state: its fields, once its CSRF token is checked.
    func action<Form: Decodable & Sendable>(
        _ form: Form.Type,
        _ body: @escaping @Sendable (Form, AppRequestContext, DashboardSignIn) async throws -> Response
    ) -> Handler {
        page { request, context, signedIn in
            try await body(try await DashboardForm.read(form, from: request, signedIn: signedIn), context, signedIn)
        }
    }

    /// The page that shows why a request was refused.
    func refusal(_ problem: Problem, signedIn: DashboardSignIn) -> Response {
        pages.render("message", .init(title: problem.kind.title, signedIn: signedIn, problem: problem.detail), status: problem.status)
    }
}
