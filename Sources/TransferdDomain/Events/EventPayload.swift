import Foundation

/// An event's type together with the arguments of its delegate callback: each case carries exactly what its type
/// shows as the event's `data`, so code that reads an event switches over the types it cares about.
package enum EventPayload: Sendable, Equatable {
    case taskCreated(StateChange)
    case taskResumed(StateChange)
    case taskSuspended(StateChange)
    case taskWaitingForConnectivity
    case taskResumedAtOffset(ResumedAtOffset)
    case taskRedirected(Redirection)
    case taskSourceDropped(SourceDropped)
    case taskAuthenticationChallenge(ChallengeIssued)
    case taskProgress(DownloadProgress)
    case taskUploadProgress(UploadProgress)
    case taskContentExpired(ContentExpired)
    case taskFinishedDownloading(FinishedDownloading)
    case taskCompleted(Completion)
    case sessionEventsFinished
    case sessionInvalidated
    case backgroundTaskExpiring(BackgroundTaskTime)
    case backgroundTaskExpired(BackgroundTaskTime)
    case backgroundTaskCompleted(BackgroundTaskTime)
    case fetchPerformed(FetchPerformed)
    case webhookTest
    case webhookDisabled(WebhookDisabled)

    /// The event's type, as the log's `type` column and the API name it.
    package var type: EventType {
        switch self {
        case .taskCreated: .taskCreated
        case .taskResumed: .taskResumed
        case .taskSuspended: .taskSuspended
        case .taskWaitingForConnectivity: .taskWaitingForConnectivity
        case .taskResumedAtOffset: .taskResumedAtOffset
        case .taskRedirected: .taskRedirected
        case .taskSourceDropped: .taskSourceDropped
        case .taskAuthenticationChallenge: .taskAuthenticationChallenge
        case .taskProgress: .taskProgress
        case .taskUploadProgress: .taskUploadProgress
        case .taskContentExpired: .taskContentExpired
        case .taskFinishedDownloading: .taskFinishedDownloading
        case .taskCompleted: .taskCompleted
        case .sessionEventsFinished: .sessionEventsFinished
        case .sessionInvalidated: .sessionInvalidated
        case .backgroundTaskExpiring: .backgroundTaskExpiring
        case .backgroundTaskExpired: .backgroundTaskExpired
        case .backgroundTaskCompleted: .backgroundTaskCompleted
        case .fetchPerformed: .fetchPerformed
        case .webhookTest: .webhookTest
        case .webhookDisabled: .webhookDisabled
        }
    }

    /// The payload of an event of `type` whose `data` is `json`, read with `decoder`.
    package init(type: EventType, json: Data, decoder: JSONDecoder) throws {
        func arguments<Arguments: Decodable>(_: Arguments.Type = Arguments.self) throws -> Arguments {
            try decoder.decode(Arguments.self, from: json)
        }
        self =
            switch type {
            case .taskCreated: .taskCreated(try arguments())
            case .taskResumed: .taskResumed(try arguments())
            case .taskSuspended: .taskSuspended(try arguments())
            case .taskWaitingForConnectivity: .taskWaitingForConnectivity
            case .taskResumedAtOffset: .taskResumedAtOffset(try arguments())
            case .taskRedirected: .taskRedirected(try arguments())
            case .taskSourceDropped: .taskSourceDropped(try arguments())
            case .taskAuthenticationChallenge: .taskAuthenticationChallenge(try arguments())
            case .taskProgress: .taskProgress(try arguments())
            case .taskUploadProgress: .taskUploadProgress(try arguments())
            case .taskContentExpired: .taskContentExpired(try arguments())
            case .taskFinishedDownloading: .taskFinishedDownloading(try arguments())
            case .taskCompleted: .taskCompleted(try arguments())
            case .sessionEventsFinished: .sessionEventsFinished
            case .sessionInvalidated: .sessionInvalidated
            case .backgroundTaskExpiring: .backgroundTaskExpiring(try arguments())
            case .backgroundTaskExpired: .backgroundTaskExpired(try arguments())
            case .backgroundTaskCompleted: .backgroundTaskCompleted(try arguments())
            case .fetchPerformed: .fetchPerformed(try arguments())
            case .webhookTest: .webhookTest
            case .webhookDisabled: .webhookDisabled(try arguments())
            }
    }
}

extension EventPayload: Encodable {
    /// The callback's arguments as the event's `data` object; `{}` for the callbacks that have none.
    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .taskCreated(let arguments), .taskResumed(let arguments), .taskSuspended(let arguments):
            try arguments.encode(to: encoder)
        case .taskResumedAtOffset(let arguments): try arguments.encode(to: encoder)
        case .taskRedirected(let arguments): try arguments.encode(to: encoder)
        case .taskSourceDropped(let arguments): try arguments.encode(to: encoder)
        case .taskAuthenticationChallenge(let arguments): try arguments.encode(to: encoder)
        case .taskProgress(let arguments): try arguments.encode(to: encoder)
        case .taskUploadProgress(let arguments): try arguments.encode(to: encoder)
        case .taskContentExpired(let arguments): try arguments.encode(to: encoder)
        case .taskFinishedDownloading(let arguments): try arguments.encode(to: encoder)
        case .taskCompleted(let arguments): try arguments.encode(to: encoder)
        case .webhookDisabled(let arguments): try arguments.encode(to: encoder)
        case .fetchPerformed(let arguments): try arguments.encode(to: encoder)
        case .backgroundTaskExpiring(let arguments), .backgroundTaskExpired(let arguments), .backgroundTaskCompleted(let arguments):
            try arguments.encode(to: encoder)
        case .taskWaitingForConnectivity, .sessionEventsFinished, .sessionInvalidated, .webhookTest:
            _ = encoder.container(keyedBy: NoArguments.self)
        }
    }

    private enum NoArguments: CodingKey {}
}
