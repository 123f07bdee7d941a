import Foundation
import TransferdDomain
import TransferdEngine

extension TaskService {
    /// Responses that transfers received, written together: one guarded `UPDATE` of their tasks (by the lease's
    /// owner, of running tasks only), then the `task.resumed_at_offset` events together (didResumeAtOffset: an attempt
    /// that meant to continue the partial file says where it did, or why it restarted).
    struct ResponseRecords: BatchWrite {
        struct Item: Sendable {
            let transfer: ActiveTransfer
            let received: ReceivedResponse
            let start: AttemptStart?

            init(transfer: ActiveTransfer, arrived: ArrivedResponse) {
                self.transfer = transfer
                start = arrived.start
                received = ReceivedResponse(
                    currentUrl: Redaction.url(arrived.url),
                    response: arrived.response,
                    start: arrived.start.map {
                        ReceivedResponse.Start(
                            offset: $0.offset,
                            expectedBytes: $0.expectedBytes,
                            resumability: $0.resumability,
                            continuesKept: $0.continuesKept
                        )
                    }
                )
            }

            /// `task.resumed_at_offset` (didResumeAtOffset), when the attempt meant to continue the partial file.
            func resumedEvent(taskIdentifier: Int64) -> EventLog.Entry? {
                guard let start, start.triedToResume else { return nil }
                return EventLog.Entry(
                    sessionID: transfer.queue.sessionID,
                    .taskResumedAtOffset(
                        ResumedAtOffset(
                            totalBytesExpectedToWrite: start.expectedBytes,
                            fileOffset: start.offset,
                            restartReason: start.restartReason
                        )
                    ),
                    taskIdentifier: taskIdentifier,
                    kind: transfer.kind
                )
            }
        }

        let service: TaskService

        func write(_ items: [Item], _ repositories: any Repositories) async throws -> [Void] {
            let running = items.filter { service.transfers.runs($0.transfer) }
            for item in running { item.transfer.rowWritten() }
            let identifiers = try await repositories.progress.recordResponses(
                owner: service.instance.id,
                running.map { ($0.transfer.taskID, $0.received) }
            )
            let resumed = running.compactMap { item in
                identifiers[item.transfer.taskID].flatMap { item.resumedEvent(taskIdentifier: $0) }
            }
            if !resumed.isEmpty { try await service.eventLog.append(repositories, resumed) }
            return items.map { _ in () }
        }
    }
}
