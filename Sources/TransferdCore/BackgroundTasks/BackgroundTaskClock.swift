import Logging
import ServiceLifecycle

/// Keeps the deadlines of background tasks: wakes when the next warning or deadline falls due (or a background
/// task begins) and lets `TaskLifecycle` write the warning or expire the task, within a second of its time.
struct BackgroundTaskClock: Service {
    let lifecycle: TaskLifecycle
    let logger: Logger

    func run() async throws {
        await withGracefulShutdownHandler {
            while !Task.isShuttingDownGracefully, !Task.isCancelled {
                var next: Duration?
                do {
                    next = try await lifecycle.processBackgroundDeadlines()
                } catch {
                    logger.error("could not process background task deadlines", metadata: ["error": "\(error)"])
                    next = .seconds(1)
                }
                await lifecycle.backgroundClock.wait(timeout: next)
            }
        } onGracefulShutdown: {
            lifecycle.backgroundClock.ring()
        }
    }
}
