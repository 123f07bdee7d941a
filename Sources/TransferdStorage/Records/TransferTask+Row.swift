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
            kind: try Self.enumeration(row, "kind"),
            state: try Self.enumeration(row, "state"),
            priority: row["priority"],
            originalRequest: try Self.json(row, "original_request") ?? TransferRequest(url: "", method: "GET", headers: [:]),
            origin: row["origin"],
            createdAt: row["created_at"]
        )
        id = row["id"]
        taskDescription = row["task_description"]
        currentUrl = row["current_url"]
        response = try Self.json(row, "response")
        countOfBytesReceived = row["count_of_bytes_received"]
        countOfBytesExpected = row["count_of_bytes_expected"]
        error = try Self.json(row, "error")
        file = try Self.json(row, "file")
        checksum = try Self.json(row, "checksum")
        earliestBeginDate = row["earliest_begin_date"]
        nextAttemptAt = row["next_attempt_at"]
        attempts = try Self.json(row, "attempts") ?? []
        waitingReason = try (row["waiting_reason"] as String?).map { try Self.enumeration($0, "waiting_reason") }
        partialBytes = row["partial_bytes"]
        resumeValidator = try Self.json(row, "resume_validator")
        notResumableReason = try (row["not_resumable_reason"] as String?).map { try Self.enumeration($0, "not_resumable_reason") }
        produceResumeData = row["produce_resume_data"]
        connections = row["connections"]
        maxBytesPerSecond = row["max_bytes_per_second"]
        maxBytes = row["max_bytes"]
        uploadFrom = try Self.json(row, "upload_from")
        sourceFileId = row["source_file_id"]
        sourceTaskId = row["source_task_id"]
        multipart = try Self.json(row, "multipart")
        countOfBytesSent = row["count_of_bytes_sent"]
        countOfBytesExpectedToSend = row["count_of_bytes_expected_to_send"]
        reply = try Self.json(row, "reply")
        backgroundTask = row["background_task"]
        cancellation = try Self.json(row, "cancellation")
        startedAt = row["started_at"]
        completedAt = row["completed_at"]
    }

    package func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["session_id"] = sessionId
        container["task_identifier"] = taskIdentifier
        container["kind"] = kind.rawValue
        container["state"] = state.rawValue
        container["task_description"] = taskDescription
        container["priority"] = priority
        container["original_request"] = try Self.json(originalRequest)
        container["origin"] = origin
        container["current_url"] = currentUrl
        container["response"] = try Self.json(response)
        container["count_of_bytes_received"] = countOfBytesReceived
        container["count_of_bytes_expected"] = countOfBytesExpected
        container["error"] = try Self.json(error)
        container["file"] = try Self.json(file)
        container["checksum"] = try Self.json(checksum)
        container["earliest_begin_date"] = earliestBeginDate
        container["next_attempt_at"] = nextAttemptAt
        container["attempts"] = try Self.json(attempts)
        container["waiting_reason"] = waitingReason?.rawValue
        container["partial_bytes"] = partialBytes
        container["resume_validator"] = try Self.json(resumeValidator)
        container["not_resumable_reason"] = notResumableReason?.rawValue
        container["produce_resume_data"] = produceResumeData
        container["connections"] = connections
        container["max_bytes_per_second"] = maxBytesPerSecond
        container["max_bytes"] = maxBytes
        container["upload_from"] = try Self.json(uploadFrom)
        container["source_file_id"] = sourceFileId
        container["source_task_id"] = sourceTaskId
        container["multipart"] = try Self.json(multipart)
        container["count_of_bytes_sent"] = countOfBytesSent
        container["count_of_bytes_expected_to_send"] = countOfBytesExpectedToSend
        container["reply"] = try Self.json(reply)
        container["background_task"] = backgroundTask
        container["cancellation"] = try Self.json(cancellation)
        container["created_at"] = createdAt
        container["started_at"] = startedAt
        container["completed_at"] = completedAt
    }

    private static func enumeration<T: RawRepresentable>(_ row: Row, _ column: String) throws -> T where T.RawValue == String {
        try enumeration(row[column] as String, column)
    }

    private static func enumeration<T: RawRepresentable>(_ value: String, _ column: String) throws -> T where T.RawValue == String {
        guard let decoded = T(rawValue: value) else {
            throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "tasks.\(column) holds `\(value)`")
        }
        return decoded
    }

    private static func json<T: Decodable>(_ row: Row, _ column: String) throws -> T? {
        guard let text = row[column] as String? else { return nil }
        return try jsonDecoder.decode(T.self, from: Data(text.utf8))
    }

    private static func json<T: Encodable>(_ value: T?) throws -> String? {
        guard let value else { return nil }
        return String(decoding: try jsonEncoder.encode(value), as: UTF8.self)
    }

    // GRDB's JSON coders (the same for every column of a task), made once rather than once per column per row.
    private static let jsonDecoder = databaseJSONDecoder(for: "")
    private static let jsonEncoder = databaseJSONEncoder(for: "")
}
