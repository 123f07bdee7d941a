/// A validated request to create a fetch schedule: what each run downloads, and when runs fall due.
package struct NewFetchSchedule: Sendable {
    package var request: TransferRequest
    package var origin: String
    package var destination: DownloadDestination
    package var taskDescription: String?
    package var timing: FetchTiming
    package var keepVersions: Int

    package init(
        request: TransferRequest,
        origin: String,
        destination: DownloadDestination,
        taskDescription: String?,
        timing: FetchTiming,
        keepVersions: Int
    ) {
        (self.request, self.origin, self.destination, self.taskDescription) = (request, origin, destination, taskDescription)
        (self.timing, self.keepVersions) = (timing, keepVersions)
    }
}

/// A validated change to a fetch schedule (`PATCH`): each field given replaces the schedule's.
package struct FetchScheduleChange: Sendable {
    package var paused: Bool?
    package var interval: Int?
    package var jitter: Double?
    /// `.some(nil)` removes the window.
    package var window: DailyWindow??
    package var keepVersions: Int?
    package var taskDescription: String?

    package init(
        paused: Bool? = nil,
        interval: Int? = nil,
        jitter: Double? = nil,
        window: DailyWindow?? = nil,
        keepVersions: Int? = nil,
        taskDescription: String? = nil
    ) {
        (self.paused, self.interval, self.jitter, self.window) = (paused, interval, jitter, window)
        (self.keepVersions, self.taskDescription) = (keepVersions, taskDescription)
    }
}
