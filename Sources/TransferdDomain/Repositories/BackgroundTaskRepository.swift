/// Finite-length background tasks.
package protocol BackgroundTaskRepository {
    func insert(_ task: BackgroundTask) async throws -> BackgroundTask
    func update(_ task: BackgroundTask) async throws
    func find(publicID: String) async throws -> BackgroundTask?
    func find(publicID: String, sessionID: Int64) async throws -> BackgroundTask?
    func list(sessionID: Int64) async throws -> [BackgroundTask]
    func active() async throws -> [BackgroundTask]
}
