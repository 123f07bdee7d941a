import Foundation
import ServiceLifecycle
import TransferdDomain
import TransferdEngine

/// Keeps the deadlines of background tasks: wakes when the next warning or deadline falls due (or a background
/// task begins) and lets the `BackgroundTaskService` write the warning or expire the task.
package struct BackgroundTaskClock: Service {
    let backgroundTasks: BackgroundTaskService
    let loop: WakeUpLoop

    package init(backgroundTasks: BackgroundTaskService, loop: WakeUpLoop) {
        self.backgroundTasks = backgroundTasks
        self.loop = loop
    }

    package func run() async throws {
        await loop.run("process background task deadlines") {
            try await backgroundTasks.processDeadlines()
        }
    }
}
