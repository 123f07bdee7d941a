import Foundation
import GRDB
import TransferdDomain

/// A task's row, read by position (`TaskColumn`) and written column by column: GRDB's `Codable` path for the forty
/// columns (a keyed container, a conformance check per value) was a sixth of the writer's time over many small
/// downloads, and most of a task lookup's. The JSON columns keep GRDB's own JSON format (`databaseJSONEncoder`), so
/// rows written either way read back alike. The original request is sealed (its headers and URL may carry
/// credentials) and written once, when the task is inserted: it never changes.
extension TransferTask {
    static let table = "tasks"

    package init(row: StoredRow, vault: CredentialVault) throws {
        self.init(
            sessionId: row[TaskColumn.sessionId],
            taskIdentifier: row[TaskColumn.taskIdentifier],
            kind: try row.enumeration(.kind),
            state: try row.enumeration(.state),
            priority: row[TaskColumn.priority],
            originalRequest: try Self.requests.value(sealed: row[TaskColumn.originalRequest], vault),
            origin: row[TaskColumn.origin],
            createdAt: row[TaskColumn.createdAt]
        )
        id = row[TaskColumn.id]
        taskDescription = row[TaskColumn.taskDescription]
        currentUrl = row[TaskColumn.currentUrl]
        response = try row.json(.response, Self.responses)
        countOfBytesReceived = row[TaskColumn.countOfBytesReceived]
        countOfBytesExpected = row[TaskColumn.countOfBytesExpected]
        error = try row.json(.error, Self.errors)
        file = try row.json(.file, Self.files)
        checksum = try row.json(.checksum)
        earliestBeginDate = row[TaskColumn.earliestBeginDate]
        nextAttemptAt = row[TaskColumn.nextAttemptAt]
        attempts = try row.json(.attempts, Self.attemptLists) ?? []
        waitingReason = try row.optionalEnumeration(.waitingReason)
        partialBytes = row[TaskColumn.partialBytes]
        resumeValidator = try row.json(.resumeValidator, Self.resumeValidators)
        notResumableReason = try row.optionalEnumeration(.notResumableReason)
        produceResumeData = row[TaskColumn.produceResumeData]
        connections = row[TaskColumn.connections]
        maxBytesPerSecond = row[TaskColumn.maxBytesPerSecond]
        maxBytes = row[TaskColumn.maxBytes]
        redirectPolicy = try row.optionalEnumeration(.redirectPolicy)
        metrics = try row.json(.metrics)
        challenge = try row.json(.challenge)
        credentials = try row.json(.credentials) ?? []
        uploadFrom = try row.json(.uploadFrom)
        sourceFileId = row[TaskColumn.sourceFileId]
        sourceTaskId = row[TaskColumn.sourceTaskId]
        multipart = try row.json(.multipart)
        countOfBytesSent = row[TaskColumn.countOfBytesSent]
        countOfBytesExpectedToSend = row[TaskColumn.countOfBytesExpectedToSend]
        reply = try row.json(.reply)
        backgroundTask = row[TaskColumn.backgroundTask]
        cancellation = try row.json(.cancellation)
        startedAt = row[TaskColumn.startedAt]
        completedAt = row[TaskColumn.completedAt]
        if let owner: String = row[TaskColumn.leaseOwner], let expiresAt: Date = row[TaskColumn.leaseExpiresAt] {
            lease = TaskLease(owner: owner, expiresAt: expiresAt)
        }
    }

    // The JSON columns that every read of a task decodes and that change once an attempt at most: its request and
    // response, its attempts, its outcome (error or file) and what a resume needs. Polling a task reads them again
    // and again; the same texts decode once.
    static let requests = DecodedTexts<TransferRequest>(capacity: 4096)
    static let responses = DecodedTexts<TransferResponse>(capacity: 4096)
    static let attemptLists = DecodedTexts<[TransferAttempt]>(capacity: 1024)
    static let files = DecodedTexts<StoredFile>(capacity: 1024)
    static let errors = DecodedTexts<TransferError>(capacity: 1024)
    static let resumeValidators = DecodedTexts<ResumeValidator>(capacity: 1024)

    /// The columns a new task's row is inserted with: its sealed original request, then what `storedColumns()` writes.
    func insertedColumns(_ vault: CredentialVault) throws -> StoredColumns {
        let request = try vault.seal(text: try RowCoding.json(originalRequest) ?? "{}")
        return ["original_request": request] + (try storedColumns())
    }

    /// Every column of the row but `id`, the lease's (which the scheduler and the lease keeper write on their own) and
    /// the original request.
    func storedColumns() throws -> StoredColumns {
        [
            "session_id": sessionId,
            "task_identifier": taskIdentifier,
            "kind": kind.rawValue,
            "state": state.rawValue,
            "task_description": taskDescription,
            "priority": priority,
            "origin": origin,
            "current_url": currentUrl,
            "response": try RowCoding.json(response),
            "count_of_bytes_received": countOfBytesReceived,
            "count_of_bytes_expected": countOfBytesExpected,
            "error": try RowCoding.json(error),
            "file": try RowCoding.json(file),
            "checksum": try RowCoding.json(checksum),
            "earliest_begin_date": StoredDate.text(orNil: earliestBeginDate),
            "next_attempt_at": StoredDate.text(orNil: nextAttemptAt),
            "attempts": try RowCoding.json(attempts),
            "waiting_reason": waitingReason?.rawValue,
            "partial_bytes": partialBytes,
            "resume_validator": try RowCoding.json(resumeValidator),
            "not_resumable_reason": notResumableReason?.rawValue,
            "produce_resume_data": produceResumeData,
            "connections": connections,
            "max_bytes_per_second": maxBytesPerSecond,
            "max_bytes": maxBytes,
            "redirect_policy": redirectPolicy?.rawValue,
            "metrics": try RowCoding.json(metrics),
            "challenge": try RowCoding.json(challenge),
            "credentials": try RowCoding.json(credentials.isEmpty ? nil : credentials),
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
            "started_at": StoredDate.text(orNil: startedAt),
            "completed_at": StoredDate.text(orNil: completedAt),
        ]
    }
}
