import Foundation

/// `background_task.expiring`, `.expired`, `.completed`: the background task's id and name, and the seconds it had
/// left.
package struct BackgroundTaskTime: Codable, Sendable, Equatable {
    package var backgroundTask: String
    package var name: String
    package var backgroundTimeRemaining: Double

    package init(_ task: BackgroundTask, at now: Date) {
        backgroundTask = task.publicId
        name = task.name
        backgroundTimeRemaining = task.remaining(at: now)
    }
}
