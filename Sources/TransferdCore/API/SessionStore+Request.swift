import Hummingbird

extension SessionStore {
    /// The session a request's path names, among the requesting tenant's sessions.
    func session(of context: AppRequestContext) async throws -> Session {
        try await session(identifier: context.parameters.sessionIdentifier(), tenantID: context.tenantID)
    }
}
