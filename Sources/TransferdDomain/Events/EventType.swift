/// Every kind of event a session's log holds; each one stands for an NSURLSession delegate callback.
package enum EventType: String, Codable, Sendable, CaseIterable {
    /// A task was created (its first appearance in the log).
    case taskCreated = "task.created"
    /// `resume()`: the task was queued to run.
    case taskResumed = "task.resumed"
    /// `suspend()`.
    case taskSuspended = "task.suspended"
    /// `urlSession(_:taskIsWaitingForConnectivity:)`: written once when the origin becomes unreachable.
    case taskWaitingForConnectivity = "task.waiting_for_connectivity"
    /// `urlSession(_:downloadTask:didResumeAtOffset:expectedTotalBytes:)`: an attempt continued the partial file,
    /// or had to start again from 0 (`restartReason` says why).
    case taskResumedAtOffset = "task.resumed_at_offset"
    /// `urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)`: a redirect, followed or not as
    /// the redirect policy says.
    case taskRedirected = "task.redirected"
    /// A download with mirrors gave up one of its sources for the attempt (it failed, was too slow, or served other
    /// content); no NSURLSession counterpart.
    case taskSourceDropped = "task.source_dropped"
    /// `urlSession(_:task:didReceive:completionHandler:)`: the origin asked for credentials; the task waits for the
    /// answer (`POST …/tasks/{n}/challenge`, or the subscriber's reply to this event).
    case taskAuthenticationChallenge = "task.authentication_challenge"
    /// `urlSession(_:downloadTask:didWriteData:totalBytesWritten:totalBytesExpectedToWrite:)`.
    case taskProgress = "task.progress"
    /// `urlSession(_:task:didSendBodyData:totalBytesSent:totalBytesExpectedToSend:)`.
    case taskUploadProgress = "task.upload_progress"
    /// A finished download's content (or an upload's reply body) passed its retention period and was removed.
    case taskContentExpired = "task.content_expired"
    /// `urlSession(_:downloadTask:didFinishDownloadingTo:)`.
    case taskFinishedDownloading = "task.finished_downloading"
    /// `urlSession(_:task:didCompleteWithError:)`.
    case taskCompleted = "task.completed"
    /// `urlSessionDidFinishEvents(forBackgroundURLSession:)`: the session had work and has none queued or running now.
    case sessionEventsFinished = "session.events_finished"
    /// `urlSession(_:didBecomeInvalidWithError:)`.
    case sessionInvalidated = "session.invalidated"
    /// A background task's deadline is near: the expiration handler's moment (end it, or let it run out).
    case backgroundTaskExpiring = "background_task.expiring"
    /// A background task reached its deadline; its unfinished transfers were cancelled.
    case backgroundTaskExpired = "background_task.expired"
    /// Every transfer of a background task completed before its deadline.
    case backgroundTaskCompleted = "background_task.completed"
    /// A run of a fetch schedule was settled: `newData`, `noData` or `failed` (UIBackgroundFetchResult).
    case fetchPerformed = "fetch.performed"
    /// Sent on request to check a webhook subscriber; no NSURLSession counterpart.
    case webhookTest = "webhook.test"
    /// The session's subscriber's endpoint was disabled (a 410 Gone, or failing for too long); no NSURLSession counterpart.
    case webhookDisabled = "webhook.disabled"
}
