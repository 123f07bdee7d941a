import Foundation
import GRDB
import TransferdDomain

/// A task's row, read and written column by column: GRDB's `Codable` path for the forty columns (a keyed container,
/// a conformance check per value) was a sixth of the writer's time over many small downloads, and most of a task
/// lookup's. The JSON columns keep GRDB's own JSON format (`databaseJSONEncoder`), so rows written either way read
/// back alike.
extension TransferTask {
    package init(row: Row) throws {
        self.init(
            sessionId: row["session_id"],
            taskIdentifier: row["task_identifier"],
            kind: try RowCoding.enumeration(row, "kind"),
            state: try RowCoding.enumeration(row, "state"),
            priority: row["priority"],
            originalRequest: try Self.requests.value(row, "original_request") ?? TransferRequest(url: "", method: "GET", headers: [:]),
            origin: row["origin"],
            createdAt: row["created_at"]
        )
        id = row["id"]
        taskDescription = row["task_description"]
        currentUrl = row["current_url"]
        response = try Self.responses.value(row, "response")
        countOfBytesReceived = row["count_of_bytes_received"]
        countOfBytesExpected = row["count_of_bytes_expected"]
        error = try RowCoding.json(row, "error")
        file = try RowCoding.json(row, "file")
        checksum = try RowCoding.json(row, "checksum")
        earliestBeginDate = row["earliest_begin_date"]
        nextAttemptAt = row["next_attempt_at"]
        attempts = try RowCoding.json(row, "attempts") ?? []
        waitingReason = try RowCoding.optionalEnumeration(row, "waiting_reason")
        partialBytes = row["partial_bytes"]
        resumeValidator = try RowCoding.json(row, "resume_validator")
        notResumableReason = try RowCoding.optionalEnumeration(row, "not_resumable_reason")
        produceResumeData = row["produce_resume_data"]
        connections = row["connections"]
        maxBytesPerSecond = row["max_bytes_per_second"]
        maxBytes = row["max_bytes"]
        uploadFrom = try RowCoding.json(row, "upload_from")
        sourceFileId = row["source_file_id"]
        sourceTaskId = row["source_task_id"]
        multipart = try RowCoding.json(row, "multipart")
        countOfBytesSent = row["count_of_bytes_sent"]
        countOfBytesExpectedToSend = row["count_of_bytes_expected_to_send"]
        reply = try RowCoding.json(row, "reply")
        backgroundTask = row["background_task"]
        cancellation = try RowCoding.json(row, "cancellation")
        startedAt = row["started_at"]
        completedAt = row["completed_at"]
    }

    // A task's request never changes and its response changes once an attempt; each report of a transfer reads them.
    static let requests = DecodedJSONTexts<TransferRequest>(capacity: 4096)
    static let responses = DecodedJSONTexts<TransferResponse>(capacity: 4096)

    package func encode(to container: inout PersistenceContainer) throws {
        container.fill(id: id, try storedColumns())
    }

    /// Every column of the row but `id`.
    func storedColumns() throws -> StoredColumns {
        [
            "session_id": sessionId,
            "task_identifier": taskIdentifier,
            "kind": kind.rawValue,
            "state": state.rawValue,
            "task_description": taskDescription,
            "priority": priority,
            "original_request": try RowCoding.json(originalRequest),
            "origin": origin,
            "current_url": currentUrl,
            "response": try RowCoding.json(response),
            "count_of_bytes_received": countOfBytesReceived,
            "count_of_bytes_expected": countOfBytesExpected,
            "error": try RowCoding.json(error),
            "file": try RowCoding.json(file),
            "checksum": try RowCoding.json(checksum),
            "earliest_begin_date": StoredDate.text(earliestBeginDate),
            "next_attempt_at": StoredDate.text(nextAttemptAt),
            "attempts": try RowCoding.json(attempts),
            "waiting_reason": waitingReason?.rawValue,
            "partial_bytes": partialBytes,
            "resume_validator": try RowCoding.json(resumeValidator),
            "not_resumable_reason": notResumableReason?.rawValue,
            "produce_resume_data": produceResumeData,
            "connections": connections,
            "max_bytes_per_second": maxBytesPerSecond,
            "max_bytes": maxBytes,
            "upload_from": try RowCoding.json(uploadFrom),
            "source_file_id": sourceFileId,
            "source_task_id": sourceTaskId,
            "multipart": try RowCoding.json(multipart),
            "count_of_bytes_sent": countOfBytesSent,
            "count_of_bytes_expected_to_send": countOfBytesExpectedToSend,
            "reply": try RowCoding.json(reply),
            "background_task": backgroundTask,
            "cancellation": try RowCoding.json(cancellation),
            "created_at": StoredDate.text(createdAt),
            "started_at": StoredDate.text(startedAt),
            "completed_at": StoredDate.text(completedAt),
        ]
    }
}
