import HTTPTypes
import Hummingbird
import Logging
import TransferdDomain
import TransferdServices

/// Turns every error that escapes a handler into an `application/problem+json` response.
///
/// `Problem`s pass through; the domain's refusals become their problems; Hummingbird's own errors (unknown route,
/// body too large, …) keep their status and message; an unreachable database, or one whose disk is full, is a 503 the
/// client may retry; a full data directory is a 507; anything else is logged and answered with a generic 500, so
/// internal error text never reaches a client.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    init() {}

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            throw Problem(error, for: request, logger: context.logger)
        }
    }
}

extension Problem {
    /// The problem any error is shown as.
    package init(_ error: any Error, for request: Request, logger: Logger) {
        switch error {
        case let problem as Problem:
            self = problem
        case let refusal as DomainError:
            self.init(refusal)
        case let error as HTTPError:
            let detail: String
            switch error.status {
            case .notFound: detail = error.body ?? "No route matches \(request.method) \(request.uri.path)."
            case .methodNotAllowed: detail = error.body ?? "\(request.method) is not allowed on \(request.uri.path)."
            default: detail = error.body ?? error.status.reasonPhrase
            }
            self.init(ProblemKind(error.status), status: error.status, detail: detail)
        default:
            switch StorageFailure(error) {
            case .databaseUnavailable(let why):
                logger.warning("the database is unavailable", metadata: ["error": "\(why)"])
                self = .databaseUnavailable
            case .databaseFull:
                logger.error("the database's disk is full", metadata: ["error": "\(String(reflecting: error))"])
                self = .databaseFull
            case .filesFull:
                logger.error("the data directory's disk is full", metadata: ["error": "\(String(reflecting: error))"])
                let detail = "The data directory's disk is full; the request's bytes were not kept. Try again once space is freed."
                self.init(.insufficientStorage(detail))
            case nil:
                logger.error("unhandled error", metadata: ["error": "\(String(reflecting: error))"])
                self = .internalError
            }
        }
    }
}
