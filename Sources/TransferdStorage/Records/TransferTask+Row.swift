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
            transfer: try Self.transfer(row),
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
        earliestBeginDate = row[TaskColumn.earliestBeginDate]
        nextAttemptAt = row[TaskColumn.nextAttemptAt]
        attempts = try row.json(.attempts, Self.attemptLists) ?? []
        waitingReason = try row.optionalEnumeration(.waitingReason)
        produceResumeData = row[TaskColumn.produceResumeData]
        maxBytesPerSecond = row[TaskColumn.maxBytesPerSecond]
        metrics = try row.json(.metrics)
        challenge = try row.json(.challenge)
        credentials = try row.json(.credentials) ?? []
        backgroundTask = row[TaskColumn.backgroundTask]
        cancellation = try row.json(.cancellation)
        fetchId = row[TaskColumn.fetchId]
        fetchResult = try row.optionalEnumeration(.fetchResult)
        traceparent = row[TaskColumn.traceparent]
        startedAt = row[TaskColumn.startedAt]
        completedAt = row[TaskColumn.completedAt]
        if let owner: String = row[TaskColumn.leaseOwner], let expiresAt: Date = row[TaskColumn.leaseExpiresAt] {
            lease = TaskLease(owner: owner, expiresAt: expiresAt)
        }
    }

    /// The kind's own columns, read into its case.
    private static func transfer(_ row: StoredRow) throws -> Transfer {
        let kind: Kind = try row.enumeration(.kind)
        switch kind {
        case .download:
            var download = DownloadTransfer(
                checksum: try row.json(.checksum),
                connections: row[TaskColumn.connections],
                maxBytes: row[TaskColumn.maxBytes],
                redirectPolicy: try row.optionalEnumeration(.redirectPolicy),
                destination: (try row.json(.destination) as ObjectLocation?).map { .object($0) } ?? .dataDirectory
            )
            download.partialBytes = row[TaskColumn.partialBytes]
            download.keptRanges = try row.json(.keptRanges)
            download.objectUpload = try row.json(.objectUpload)
            download.resumeValidator = try row.json(.resumeValidator, Self.resumeValidators)
            download.notResumableReason = try row.optionalEnumeration(.notResumableReason)
            download.file = try row.json(.file, Self.files)
            return .download(download)
        case .upload:
            guard let from: UploadSource = try row.json(.uploadFrom) else {
                throw StoreError.corruptValue("an upload's row has no upload_from")
            }
            var upload = UploadTransfer(from: from, multipart: try row.json(.multipart))
            upload.sourceFileId = row[TaskColumn.sourceFileId]
            upload.sourceTaskId = row[TaskColumn.sourceTaskId]
            upload.countOfBytesSent = row[TaskColumn.countOfBytesSent]
            upload.countOfBytesExpectedToSend = row[TaskColumn.countOfBytesExpectedToSend]
            upload.reply = try row.json(.reply)
            return .upload(upload)
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
        try sharedColumns() + (try Self.columns(of: transfer))
    }

    /// The kind's own columns; the other kinds' hold their defaults.
    private static func columns(of transfer: Transfer) throws -> StoredColumns {
        let (download, upload) = (transfer.download ?? DownloadTransfer(), transfer.upload)
        return [
            "file": try RowCoding.json(download.file),
            "checksum": try RowCoding.json(download.checksum),
            "partial_bytes": download.partialBytes,
            "kept_ranges": try RowCoding.json(download.keptRanges),
            "resume_validator": try RowCoding.json(download.resumeValidator),
            "not_resumable_reason": download.notResumableReason?.rawValue,
            "connections": download.connections,
            "max_bytes": download.maxBytes,
            "redirect_policy": download.redirectPolicy?.rawValue,
            "destination": try RowCoding.json(download.destination.object),
            "object_upload": try RowCoding.json(download.objectUpload),
            "upload_from": try RowCoding.json(upload?.from),
            "source_file_id": upload?.sourceFileId,
            "source_task_id": upload?.sourceTaskId,
            "multipart": try RowCoding.json(upload?.multipart),
            "count_of_bytes_sent": upload?.countOfBytesSent ?? 0,
            "count_of_bytes_expected_to_send": upload?.countOfBytesExpectedToSend ?? -1,
            "reply": try RowCoding.json(upload?.reply),
        ]
    }

    /// The columns every kind has.
    private func sharedColumns() throws -> StoredColumns {
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
            "earliest_begin_date": StoredDate.text(orNil: earliestBeginDate),
            "next_attempt_at": StoredDate.text(orNil: nextAttemptAt),
            "attempts": try RowCoding.json(attempts),
            "waiting_reason": waitingReason?.rawValue,
            "produce_resume_data": produceResumeData,
            "max_bytes_per_second": maxBytesPerSecond,
            "metrics": try RowCoding.json(metrics),
            "challenge": try RowCoding.json(challenge),
            "credentials": try RowCoding.json(credentials.isEmpty ? nil : credentials),
            "background_task": backgroundTask,
            "cancellation": try RowCoding.json(cancellation),
            "fetch_id": fetchId,
            "fetch_result": fetchResult?.rawValue,
            "traceparent": traceparent,
            "created_at": StoredDate.text(createdAt),
            "started_at": StoredDate.text(orNil: startedAt),
            "completed_at": StoredDate.text(orNil: completedAt),
        ]
    }
}

/// A repository that reads whole task rows.
protocol TaskRows {
    var db: any SQLConnection { get }
    var vault: CredentialVault { get }
}

extension TaskRows {
    /// The tasks a statement reads.
    func tasks(_ sql: String, _ arguments: SQLArguments = []) async throws -> [TransferTask] {
        try await db.fetchAll(sql, arguments, { try TransferTask(row: $0, vault: vault) })
    }
}
