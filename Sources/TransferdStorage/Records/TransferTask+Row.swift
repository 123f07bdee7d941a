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
        container["id"] = id
        container["session_id"] = sessionId
        container["task_identifier"] = taskIdentifier
        container["kind"] = kind.rawValue
        container["state"] = state.rawValue
        container["task_description"] = taskDescription
        container["priority"] = priority
        container["original_request"] = try RowCoding.json(originalRequest)
        container["origin"] = origin
        container["current_url"] = currentUrl
        container["response"] = try RowCoding.json(response)
        container["count_of_bytes_received"] = countOfBytesReceived
        container["count_of_bytes_expected"] = countOfBytesExpected
        container["error"] = try RowCoding.json(error)
        container["file"] = try RowCoding.json(file)
        container["checksum"] = try RowCoding.json(checksum)
        container["earliest_begin_date"] = StoredDate.text(earliestBeginDate)
        container["next_attempt_at"] = StoredDate.text(nextAttemptAt)
        container["attempts"] = try RowCoding.json(attempts)
        container["waiting_reason"] = waitingReason?.rawValue
        container["partial_bytes"] = partialBytes
        container["resume_validator"] = try RowCoding.json(resumeValidator)
        container["not_resumable_reason"] = notResumableReason?.rawValue
        container["produce_resume_data"] = produceResumeData
        container["connections"] = connections
        container["max_bytes_per_second"] = maxBytesPerSecond
        container["max_bytes"] = maxBytes
        container["upload_from"] = try RowCoding.json(uploadFrom)
        container["source_file_id"] = sourceFileId
        container["source_task_id"] = sourceTaskId
        container["multipart"] = try RowCoding.json(multipart)
        container["count_of_bytes_sent"] = countOfBytesSent
        container["count_of_bytes_expected_to_send"] = countOfBytesExpectedToSend
        container["reply"] = try RowCoding.json(reply)
        container["background_task"] = backgroundTask
        container["cancellation"] = try RowCoding.json(cancellation)
        container["created_at"] = StoredDate.text(createdAt)
        container["started_at"] = StoredDate.text(startedAt)
        container["completed_at"] = StoredDate.text(completedAt)
    }
}
