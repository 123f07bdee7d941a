import Foundation

/// The dashboard's signed-in sessions.
package protocol DashboardSessionRepository {
    func insert(_ session: DashboardSession) throws
    func find(tokenHash: String) throws -> DashboardSession?
    func delete(tokenHash: String) throws
    /// Ends the sessions of `apiKeyID` but its `count` newest.
    func deleteAllButNewest(_ count: Int, apiKeyID: String) throws
    /// Forgets the sessions that expired before `date`.
    func deleteExpired(before date: Date) throws
}
