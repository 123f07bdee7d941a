import Foundation
import TransferdDomain

/// The body of `POST …/fetches`: what each run downloads (as a download task's fields), and when runs fall due.
struct CreateFetchRequest: Decodable {
    var url: String?
    var interval: Int?
    var headers: [String: String]?
    var taskDescription: String?
    var keepVersions: Int?
    var jitter: Double?
    var window: String?
    var destination: CreateTaskRequest.DestinationRequest?

    func validate() throws(DomainError) -> NewFetchSchedule {
        guard let interval else { throw .badRequest("`interval` is required: seconds between runs, at least 60.") }
        let headers = headers ?? [:]
        for name in headers.keys where FetchSchedule.reservedHeaders.contains(name.lowercased()) {
            throw .invalidField("headers.\(name)", requirement: "is set by each run from the latest version and cannot be given")
        }
        // The run is a download task: its fields are checked as one's.
        let download = try CreateTaskRequest(
            kind: TransferTask.Kind.download.rawValue,
            url: url,
            headers: headers,
            taskDescription: taskDescription,
            destination: destination
        ).validate()
        return NewFetchSchedule(
            request: download.request,
            origin: download.origin,
            destination: download.transfer.download?.destination ?? .dataDirectory,
            taskDescription: taskDescription,
            timing: FetchTiming(
                interval: try FetchFields.interval(interval),
                jitter: try FetchFields.jitter(jitter ?? 0),
                window: try window.map { text throws(DomainError) in try FetchFields.window(text) }
            ),
            keepVersions: try FetchFields.keepVersions(keepVersions ?? 1)
        )
    }
}

/// The body of `PATCH …/fetches/{id}`: the fields given change; `window: null` removes the window.
struct UpdateFetchRequest: Decodable {
    var paused: Bool?
    var interval: Int?
    var jitter: Double?
    var window: String?
    var changesWindow: Bool
    var keepVersions: Int?
    var taskDescription: String?

    enum CodingKeys: String, CodingKey {
        case paused, interval, jitter, window, keepVersions, taskDescription
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        paused = try container.decodeIfPresent(Bool.self, forKey: .paused)
        interval = try container.decodeIfPresent(Int.self, forKey: .interval)
        jitter = try container.decodeIfPresent(Double.self, forKey: .jitter)
        window = try container.decodeIfPresent(String.self, forKey: .window)
        changesWindow = container.contains(.window)
        keepVersions = try container.decodeIfPresent(Int.self, forKey: .keepVersions)
        taskDescription = try container.decodeIfPresent(String.self, forKey: .taskDescription)
    }

    func validate() throws(DomainError) -> FetchScheduleChange {
        if let taskDescription { try TaskFieldValidation.validateDescription(taskDescription) }
        return FetchScheduleChange(
            paused: paused,
            interval: try interval.map { value throws(DomainError) in try FetchFields.interval(value) },
            jitter: try jitter.map { value throws(DomainError) in try FetchFields.jitter(value) },
            window: changesWindow ? .some(try window.map { text throws(DomainError) in try FetchFields.window(text) }) : nil,
            keepVersions: try keepVersions.map { value throws(DomainError) in try FetchFields.keepVersions(value) },
            taskDescription: taskDescription
        )
    }
}

/// The checks of a schedule's timing fields, shared by creation and change.
enum FetchFields {
    /// The longest interval: 30 days.
    static let maximumInterval = 30 * 86_400

    static func interval(_ seconds: Int) throws(DomainError) -> Int {
        guard (FetchTiming.minimumInterval...maximumInterval).contains(seconds) else {
            throw .invalidField("interval", requirement: "must be from \(FetchTiming.minimumInterval) to \(maximumInterval) seconds")
        }
        return seconds
    }

    static func jitter(_ fraction: Double) throws(DomainError) -> Double {
        guard fraction.isFinite, (0...1).contains(fraction) else {
            throw .invalidField("jitter", requirement: "must be a fraction of the interval from 0 to 1")
        }
        return fraction
    }

    static func window(_ text: String) throws(DomainError) -> DailyWindow {
        guard let window = DailyWindow(text, timeZone: .utc) else {
            throw .invalidField("window", requirement: "must be HH:MM-HH:MM in UTC, opening and closing at different times")
        }
        return window
    }

    static func keepVersions(_ count: Int) throws(DomainError) -> Int {
        guard (1...100).contains(count) else { throw .invalidField("keepVersions", requirement: "must be from 1 to 100") }
        return count
    }
}
