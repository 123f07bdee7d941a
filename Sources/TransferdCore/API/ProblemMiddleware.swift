import HTTPTypes
import Hummingbird
import Logging

/// Turns every error that escapes a handler into an `application/problem+json` response.
///
/// `Problem`s pass through; Hummingbird's own errors (unknown route, body too large, …) keep their status and message;
/// anything else is logged and answered with a generic 500, so internal error text never reaches a client.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            throw problem
        } catch let error as HTTPError {
            throw Self.problem(for: error, request: request)
        } catch {
            context.logger.error("unhandled error", metadata: ["error": "\(String(reflecting: error))"])
            throw Problem.internalError
        }
    }

    private static func problem(for error: HTTPError, request: Request) -> Problem {
        let detail: String
        switch error.status {
        case .notFound:
            detail = error.body ?? "No route matches \(request.method) \(request.uri.path)."
        case .methodNotAllowed:
            detail = error.body ?? "\(request.method) is not allowed on \(request.uri.path)."
        default:
            detail = error.body ?? error.status.reasonPhrase
        }
        let slug = error.status.reasonPhrase.lowercased().split(separator: " ").joined(separator: "-")
        return Problem(status: error.status, slug: slug, title: error.status.reasonPhrase, detail: detail)
    }
}
