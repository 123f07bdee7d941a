import Foundation
import TransferdDomain
import TransferdEngine

/// Task 1 of session 1 as the engine sees it once claimed, for tests that run its parts without a service.
enum EngineFixtures {
    /// A download of `url`, with the default session configuration.
    static func job(_ url: String = "http://127.0.0.1:9/file") -> TransferJob {
        var task = TransferTask(
            sessionId: 1,
            taskIdentifier: 1,
            transfer: .download(DownloadTransfer()),
            state: .running,
            priority: 0.5,
            originalRequest: TransferRequest(url: url, method: "GET", headers: [:]),
            origin: "http://127.0.0.1",
            createdAt: Date()
        )
        task.id = 1
        return TransferJob(task: task, configuration: .default, work: .download(download), bounds: bounds)
    }

    /// The download's own part of that job.
    static let download = DownloadJob(DownloadTransfer(), configuration: .default, bounds: bounds)

    static let bounds = TransferBounds(maximumDownloadBytes: 1 << 30, maximumRequestTimeout: .seconds(600))

    /// The transfer of that task, its lease held for `duration` from now.
    static func transfer(heldFor duration: Duration) -> ActiveTransfer {
        ActiveTransfer(
            taskID: 1,
            kind: .download,
            queue: HostQueue(sessionID: 1, origin: "http://127.0.0.1"),
            tenantID: 1,
            maxBytesPerSecond: nil,
            leaseHeldUntil: .now + duration
        )
    }
}
