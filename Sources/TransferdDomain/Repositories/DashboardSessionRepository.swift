import Foundation

/// The dashboard's signed-in sessions.
package protocol DashboardSessionRepository {
    func insert(_ session: DashboardSession) async throws
    func find(tokenHash: String) async throws -> DashboardSession?
    func delete(tokenHash: String) async throws
    /// Ends the sessions of `apiKeyID` but its `count` newest.
    func deleteAllButNewest(_ count: Int, apiKeyID: String) async throws
    /// Forgets the sessions that expired before `date`.
    func deleteExpired(before date: Date) async throws
}
