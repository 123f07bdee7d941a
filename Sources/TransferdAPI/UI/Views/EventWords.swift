import Foundation
import TransferdDomain

/// An event's arguments in a few words, for the dashboard's event lists.
enum EventWords {
    static func summary(_ payload: EventPayload) -> String {
        switch payload {
        case .taskProgress(let progress):
            return Self.progress(progress.totalBytesWritten, of: progress.totalBytesExpectedToWrite, "written")
        case .taskUploadProgress(let progress):
            return Self.progress(progress.totalBytesSent, of: progress.totalBytesExpectedToSend, "sent")
        case .taskCompleted(let completion):
            return completion.error.map { TaskWords.outcome($0.code.rawValue, statusCode: $0.statusCode) + ": " + $0.message }
                ?? "succeeded"
        case .taskFinishedDownloading(let finished):
            return "\(DisplayFormat.size(finished.file.size)), SHA-256 \(finished.file.sha256.prefix(16))…"
        case .taskContentExpired(let expired):
            return expired.file.map { DisplayFormat.size($0.size) + " removed" } ?? "reply body removed"
        case .taskAuthenticationChallenge(let challenge):
            let space = challenge.protectionSpace
            return "\(space.authenticationMethod) credentials for \(space.host):\(space.port)"
                + (space.realm.map { " (realm \($0))" } ?? "")
        case .taskRedirected(let redirection):
            return "\(redirection.statusCode) to \(redirection.toURL)" + (redirection.followed ? "" : " (not followed)")
        case .taskSourceDropped(let dropped):
            return "\(dropped.url) dropped (\(dropped.reason.rawValue))"
        case .taskResumedAtOffset(let resumed):
            guard resumed.fileOffset > 0 else {
                return "started again from 0" + (resumed.restartReason.map { ": \($0.rawValue)" } ?? "")
            }
            return "continued at \(DisplayFormat.size(resumed.fileOffset))"
        case .backgroundTaskExpiring(let time), .backgroundTaskExpired(let time), .backgroundTaskCompleted(let time):
            return time.name + String(format: ", %.0f s left", time.backgroundTimeRemaining)
        case .taskCreated(let change), .taskResumed(let change), .taskSuspended(let change):
            return "now \(change.state.rawValue)"
        case .webhookDisabled(let disabled):
            return disabled.reason
        case .fetchPerformed(let performed):
            return "\(performed.fetchId): \(performed.result.rawValue)" + (performed.sha256.map { ", SHA-256 \($0.prefix(16))…" } ?? "")
        case .taskWaitingForConnectivity, .sessionEventsFinished, .sessionInvalidated, .webhookTest:
            return ""
        }
    }

    private static func progress(_ done: Int64, of total: Int64, _ verb: String) -> String {
        let done = DisplayFormat.size(done)
        guard total >= 0 else { return "\(done) \(verb)" }
        return "\(done) of \(DisplayFormat.size(total)) \(verb)"
    }
}
