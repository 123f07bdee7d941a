import Foundation
import TransferdDomain

/// An event's arguments in a few words, for the dashboard's event lists.
enum EventWords {
    static func summary(_ type: EventType, _ data: EventData) -> String {
        switch type {
        case .taskProgress:
            return progress(data.totalBytesWritten, of: data.totalBytesExpectedToWrite, "written")
        case .taskUploadProgress:
            return progress(data.totalBytesSent, of: data.totalBytesExpectedToSend, "sent")
        case .taskCompleted:
            return data.error.map { TaskWords.outcome($0.code.rawValue, statusCode: $0.statusCode) + ": " + $0.message } ?? "succeeded"
        case .taskFinishedDownloading:
            return data.file.map { "\(DisplayFormat.size($0.size)), SHA-256 \($0.sha256.prefix(16))…" } ?? ""
        case .taskAuthenticationChallenge:
            guard let space = data.protectionSpace else { return "" }
            return "\(space.authenticationMethod) credentials for \(space.host):\(space.port)"
                + (space.realm.map { " (realm \($0))" } ?? "")
        case .taskRedirected:
            let to = data.toURL ?? ""
            return "\(data.statusCode.map(String.init) ?? "") to \(to)" + (data.followed == false ? " (not followed)" : "")
        case .taskResumedAtOffset:
            guard let offset = data.fileOffset, offset > 0 else {
                return "started again from 0" + (data.restartReason.map { ": \($0.rawValue)" } ?? "")
            }
            return "continued at \(DisplayFormat.size(offset))"
        case .backgroundTaskExpiring, .backgroundTaskExpired, .backgroundTaskCompleted:
            let remaining = data.backgroundTimeRemaining.map { String(format: ", %.0f s left", $0) } ?? ""
            return (data.name ?? data.backgroundTask ?? "") + remaining
        default:
            return data.state.map { "now \($0.rawValue)" } ?? ""
        }
    }

    private static func progress(_ done: Int64?, of total: Int64?, _ verb: String) -> String {
        let done = DisplayFormat.size(done ?? 0)
        guard let total, total >= 0 else { return "\(done) \(verb)" }
        return "\(done) of \(DisplayFormat.size(total)) \(verb)"
    }
}
