/// Finite-length background tasks.
package protocol BackgroundTaskRepository {
    func insert(_ task: BackgroundTask) throws -> BackgroundTask
    func update(_ task: BackgroundTask) throws
    func find(publicID: String) throws -> BackgroundTask?
    func find(publicID: String, sessionID: Int64) throws -> BackgroundTask?
    func list(sessionID: Int64) throws -> [BackgroundTask]
    func active() throws -> [BackgroundTask]
}
