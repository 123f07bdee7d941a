import Hummingbird
import TransferdServices

extension SessionService {
    /// What `read` takes from the request of a route that finds its session itself (`lookups`), or, when it refuses
    /// a parameter, the 404 of a session that does not exist before that 400: the order of the routes behind
    /// `SessionMiddleware`.
    func parameters<T>(of context: AppRequestContext, _ read: () throws -> T) async throws -> T {
        do {
            return try read()
        } catch {
            _ = try await session(identifier: context.parameters.get("identifier") ?? "", tenantID: context.tenantID)
            throw error
        }
    }
}
