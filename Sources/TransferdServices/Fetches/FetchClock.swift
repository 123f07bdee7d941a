import Foundation
import ServiceLifecycle
import TransferdEngine

/// Keeps the fetch schedules' time: wakes when the next run falls due, when a schedule changes, or when a run's task
/// completes (on this instance or, through the database, another), and lets the `FetchService` settle and start runs.
/// It sleeps while nothing is due: idle schedules cost nothing but their next wake-up.
package struct FetchClock: Service {
    let fetches: FetchService
    let loop: WakeUpLoop

    package init(fetches: FetchService, loop: WakeUpLoop) {
        (self.fetches, self.loop) = (fetches, loop)
    }

    package func run() async throws {
        await loop.run("process fetch schedules") {
            try await fetches.processRuns()
        }
    }
}
