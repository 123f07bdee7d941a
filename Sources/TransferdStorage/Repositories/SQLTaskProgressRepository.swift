import Foundation
import GRDB
import TransferdDomain

/// The progress of tasks' transfers, written by the lease's owner.
struct SQLTaskProgressRepository: TaskProgressRepository {
    let db: any SQLConnection

    func recordProgress(
        id: Int64,
        owner: String,
        received: Int64,
        expected: Int64,
        partialBytes: Int64,
        keptRanges: KeptRanges?,
        objectUpload: ObjectUploadProgress?
    ) async throws -> Bool {
        try await db.execute(
            """
            UPDATE tasks SET count_of_bytes_received = ?, count_of_bytes_expected = ?, partial_bytes = ?, kept_ranges = ?,
              object_upload = COALESCE(?, object_upload),
              reserved_bytes = CASE WHEN partial_bytes + reserved_bytes > ? THEN partial_bytes + reserved_bytes - ? ELSE 0 END
            WHERE id = ? AND state IN (?, ?) AND lease_owner = ?
            """,
            [
                received, expected, partialBytes, try RowCoding.json(keptRanges), try RowCoding.json(objectUpload), partialBytes,
                partialBytes, id,
                TaskState.running, TaskState.canceling, owner,
            ]
        ) > 0
    }

    func reservation(id: Int64) async throws -> Int64 {
        try await db.value("SELECT partial_bytes + reserved_bytes FROM tasks WHERE id = ?", [id]) ?? 0
    }

    func reserve(id: Int64, owner: String, through: Int64) async throws -> Bool {
        try await db.execute(
            """
            UPDATE tasks SET reserved_bytes = CASE WHEN ? - partial_bytes > reserved_bytes THEN ? - partial_bytes ELSE reserved_bytes END
            WHERE id = ? AND state = ? AND lease_owner = ?
            """,
            [through, through, id, TaskState.running, owner]
        ) > 0
    }

    func recordResponses(owner: String, _ responses: [(id: Int64, received: ReceivedResponse)]) async throws -> [Int64: Int64] {
        var identifiers: [Int64: Int64] = [:]
        // Rows of one shape go together: a response that starts a body writes its offset and validator too, and forgets
        // the kept ranges unless it continues them.
        for shape in [nil, true, false] as [Bool?] {
            let rows = try responses.filter { $0.received.start?.continuesKept == shape }.map { ($0.id, try Self.columns(of: $0.received)) }
            try await db.batches.update(
                TransferTask.table,
                rows: rows,
                matching: ["state": TaskState.running, "lease_owner": owner],
                returning: ["task_identifier"],
                db
            ) { id, row in identifiers[id] = row["task_identifier"] }
        }
        return identifiers
    }

    /// The columns a response writes.
    private static func columns(of received: ReceivedResponse) throws -> StoredColumns {
        let columns: StoredColumns = ["current_url": received.currentUrl, "response": try RowCoding.json(received.response)]
        guard let start = received.start else { return columns }
        let (validator, reason): (ResumeValidator?, String?) =
            switch start.resumability {
            case .success(let validator): (validator, nil)
            case .failure(let reason): (nil, reason.rawValue)
            }
        let kept: StoredColumns = start.continuesKept ? [:] : ["kept_ranges": nil]
        return columns + kept
            + [
                "count_of_bytes_received": start.offset, "count_of_bytes_expected": start.expectedBytes, "partial_bytes": start.offset,
                "resume_validator": try RowCoding.json(validator), "not_resumable_reason": reason,
            ]
    }

    func recordUploadProgress(id: Int64, owner: String, sent: Int64, expected: Int64) async throws -> Bool {
        try await db.execute(
            """
            UPDATE tasks SET count_of_bytes_sent = ?, count_of_bytes_expected_to_send = ?
            WHERE id = ? AND state = ? AND lease_owner = ?
            """,
            [sent, expected, id, TaskState.running, owner]
        ) > 0
    }

    func recordObjectUpload(id: Int64, owner: String, objectUpload: ObjectUploadProgress) async throws -> Bool {
        try await db.execute(
            "UPDATE tasks SET object_upload = ? WHERE id = ? AND state IN (?, ?) AND lease_owner = ?",
            [try RowCoding.json(objectUpload), id, TaskState.running, TaskState.canceling, owner]
        ) > 0
    }
}
