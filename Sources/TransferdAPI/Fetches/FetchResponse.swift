import Foundation
import Hummingbird
import TransferdDomain

/// A fetch schedule as the API shows it: what it fetches, when, its state, its last run and its latest version.
struct FetchResponse: ResponseEncodable, Sendable {
    var id: String
    var url: String
    /// The names of the headers each run sends (their values may be credentials).
    var headers: [String]
    @ExplicitNull var taskDescription: String?
    var interval: Int
    var jitter: Double
    @ExplicitNull var window: String?
    var keepVersions: Int
    @ExplicitNull var destination: ObjectLocation?
    var state: FetchScheduleStateMachine.State
    /// When the next run falls due (it starts then, or once the run under way has been judged).
    var nextRunAt: Date
    /// The task identifier of the run under way.
    @ExplicitNull var runningTask: Int64?
    @ExplicitNull var lastRun: FetchRun?
    @ExplicitNull var latest: FetchVersion?
    var createdAt: Date

    init(_ schedule: FetchSchedule) {
        id = schedule.publicId
        url = Redaction.url(schedule.request.url)
        headers = schedule.request.headers.keys.sorted()
        taskDescription = schedule.taskDescription
        interval = schedule.timing.interval
        jitter = schedule.timing.jitter
        window = schedule.timing.window?.description
        keepVersions = schedule.keepVersions
        destination = schedule.destination.object
        state = schedule.phase.state
        nextRunAt = schedule.nextRunAt
        runningTask = schedule.phase.runningTask
        lastRun = schedule.lastRun
        latest = schedule.latest
        createdAt = schedule.createdAt
    }
}
