import Foundation
import TransferdDomain

/// A fetch schedule's row: its request sealed (its headers may carry credentials), its last run and latest version
/// as JSON.
extension FetchSchedule {
    static let table = "fetch_schedules"

    init(row: StoredRow, vault: CredentialVault) throws {
        let window: String? = row["time_window"]
        self.init(
            publicId: row["public_id"],
            sessionId: row["session_id"],
            request: try RowCoding.decode(TransferRequest.self, json: try vault.open(text: row["request"])),
            origin: row["origin"],
            destination: (try RowCoding.json(row, "destination") as ObjectLocation?).map { .object($0) } ?? .dataDirectory,
            taskDescription: row["task_description"],
            timing: FetchTiming(
                interval: row["interval_seconds"],
                jitter: row["jitter"],
                window: try window.map { text in
                    guard let window = DailyWindow(text, timeZone: .utc) else {
                        throw StoreError.corruptValue("a fetch schedule's window `\(text)`")
                    }
                    return window
                }
            ),
            keepVersions: row["keep_versions"],
            createdAt: row["created_at"],
            nextRunAt: row["next_run_at"]
        )
        id = row["id"]
        anchorAt = row["anchor_at"]
        phase = FetchScheduleStateMachine.Phase(paused: (row["paused"] as Int64) != 0, runningTask: row["running_task"])
        lastRun = try RowCoding.json(row, "last_run")
        latest = try RowCoding.json(row, "latest")
    }

    /// Every column of the row but `id`.
    func storedColumns(vault: CredentialVault) throws -> StoredColumns {
        [
            "public_id": publicId,
            "session_id": sessionId,
            "request": try vault.seal(text: try RowCoding.json(request) ?? "{}"),
            "origin": origin,
            "destination": try RowCoding.json(destination.object),
            "task_description": taskDescription,
            "interval_seconds": timing.interval,
            "jitter": timing.jitter,
            "time_window": timing.window?.description,
            "keep_versions": keepVersions,
            "paused": phase.paused,
            "anchor_at": StoredDate.text(anchorAt),
            "next_run_at": StoredDate.text(nextRunAt),
            "running_task": phase.runningTask,
            "last_run": try RowCoding.json(lastRun),
            "latest": try RowCoding.json(latest),
            "created_at": StoredDate.text(createdAt),
        ]
    }
}
