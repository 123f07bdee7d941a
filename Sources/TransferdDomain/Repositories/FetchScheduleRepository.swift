import Foundation

/// Fetch schedules.
package protocol FetchScheduleRepository {
    func insert(_ schedule: FetchSchedule) async throws -> FetchSchedule
    func update(_ schedule: FetchSchedule) async throws
    func delete(id: Int64) async throws
    /// The schedule, its row locked for the transaction's write on PostgreSQL.
    func find(publicID: String, sessionID: Int64) async throws -> FetchSchedule?
    func list(sessionID: Int64) async throws -> [FetchSchedule]
    func count(sessionID: Int64) async throws -> Int
    /// The schedules of each tenant's live sessions, by tenant; `tenantID` alone when given.
    func countByTenant(tenantID: Int64?) async throws -> [Int64: Int]
    /// Schedules not paused, with no run under way, due at `now`: the earliest first, at most `limit`.
    func due(at now: Date, limit: Int) async throws -> [(publicID: String, sessionID: Int64)]
    /// When the next run not yet started falls due; nil when none is waiting.
    func nextRunAt() async throws -> Date?
    /// Schedules whose run's task has completed but which have not been settled yet, at most `limit`.
    func endedRuns(limit: Int) async throws -> [(publicID: String, sessionID: Int64)]
    /// The run tasks of a schedule whose content is kept as versions, newest first.
    func versions(fetchID: String, sessionID: Int64) async throws -> [TransferTask]
}
