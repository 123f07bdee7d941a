import Foundation
import TransferdClient

/// One task that a command follows to its end: where it stands, its bytes and its rate, from its events.
struct FollowedTransfer: Sendable {
    /// Where the transfer stands.
    enum Phase: Sendable, Equatable {
        case queued
        case waiting(String)
        case transferring
        /// The finished content is being saved to a local file.
        case saving
        case succeeded
        case failed(code: String, message: String)

        var isFinished: Bool {
            switch self {
            case .succeeded, .failed: true
            default: false
            }
        }
    }

    /// `session/identifier`, as the commands take it back (or what a step that is not a task is).
    let reference: String
    /// What it is called on screen: the file name of its URL, or the file it sends.
    let name: String
    var phase: Phase = .queued
    var done: Int64 = 0
    var total: Int64 = -1
    var meter = RateMeter()

    init(reference: String, name: String, bytes: (done: Int64, total: Int64)) {
        self.reference = reference
        self.name = name
        (done, total) = bytes
    }

    /// A task of `session`, named after its URL unless `name` is given.
    init(session: String, task: APITask, name: String? = nil) {
        self.init(reference: "\(session)/\(task.taskIdentifier)", name: name ?? Self.name(of: task.originalRequest.url), bytes: task.bytes)
    }

    /// The last path component of `url`, else its host.
    static func name(of url: String) -> String {
        guard let components = URL(string: url) else { return url }
        let last = components.lastPathComponent
        return last.isEmpty || last == "/" ? (components.host ?? url) : last
    }

    /// Takes in one of the task's events.
    mutating func apply(_ event: SessionEvent) {
        switch event.type {
        case "task.progress", "task.upload_progress":
            if let progress = event.progress {
                (done, total) = progress
                meter.record(done, at: event.createdAt)
            }
            phase = .transferring
        case "task.resumed_at_offset":
            done = Int64(event.data.fileOffset ?? 0)
            meter.record(done, at: event.createdAt)
            phase = .transferring
        case "task.waiting_for_connectivity":
            phase = .waiting("waitingForConnectivity")
        case "task.suspended":
            phase = .waiting("suspended")
        case "task.resumed":
            phase = .queued
        case "task.completed":
            if let error = event.data.error {
                phase = .failed(code: error.code.rawValue, message: error.message)
            } else {
                if total > 0 { done = total }
                phase = .succeeded
            }
        default:
            break
        }
    }
}
