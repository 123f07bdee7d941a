import Foundation
import TransferdDomain

/// A task as the dashboard shows it in a row or on its page: state in words, progress, bytes, and which actions
/// apply. The `data-` values let the page's script update it from the session's event stream.
enum TaskRow {
    static func values(_ task: TaskRepresentation, session identifier: String) -> [String: Any] {
        let upload = task.kind == .upload
        let (done, total) =
            upload
            ? (task.countOfBytesSent, task.countOfBytesExpectedToSend) : (task.countOfBytesReceived, task.countOfBytesExpectedToReceive)
        let status: String
        let tone: String
        switch (task.state, task.error, task.waitingReason) {
        case (.completed, .some(let error), _):
            (status, tone) = ("failed: \(error.code.rawValue)", "failed")
        case (.running, _, .some(let reason)):
            (status, tone) = ("waiting: \(reason.rawValue)", "suspended")
        default:
            (status, tone) = (task.state.rawValue, task.state.rawValue)
        }
        var values: [String: Any] = [
            "identifier": task.taskIdentifier, "kind": task.kind.rawValue, "state": task.state.rawValue, "status": status,
            "tone": tone, "url": task.originalRequest.url, "method": task.originalRequest.method, "done": done, "total": total,
            "bytes": total >= 0 ? "\(DisplayFormat.size(done)) of \(DisplayFormat.size(total))" : DisplayFormat.size(done),
            "link": "/ui/sessions/\(identifier)/tasks/\(task.taskIdentifier)",
            "actions": "/ui/sessions/\(identifier)/tasks/\(task.taskIdentifier)",
        ]
        if let reason = task.waitingReason { values["waiting"] = TaskWords.waiting(reason, until: task.nextAttemptAt) }
        if let error = task.error {
            values["failure"] = TaskWords.outcome(error.code.rawValue, statusCode: error.statusCode) + ": " + error.message
        }
        if total > 0 || task.progress.fractionCompleted == 1 {
            values["bar"] = task.progress.fractionCompleted
            values["percent"] = "\(Int(task.progress.fractionCompleted * 100)) %"
        } else if task.state != .running {
            // Only a task at work shows an indeterminate (animated) bar; a failed, cancelled or suspended one of unknown
            // size shows an empty bar, stopped.
            values["bar"] = 0.0
        }
        return values
    }
}
