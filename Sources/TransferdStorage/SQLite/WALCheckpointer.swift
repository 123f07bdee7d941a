import GRDB
import GRDBSQLite
import Synchronization

/// Checkpoints the write-ahead log mostly on a connection of its own, beside the writer, rather than all in the
/// writer's commits. SQLite's automatic checkpoint runs inside the commit that takes the log past 1,000 pages: that
/// commit copies the log into the database and syncs it, and every caller waiting on the one writer waits too.
///
/// After each commit SQLite reports the log's length to the writer's WAL hook (which replaces the automatic
/// checkpoint). Past `threshold` pages, a passive checkpoint starts on the checkpointer's connection, one at a
/// time, without blocking the writer or readers. It copies what the log held when it started; under a steady
/// stream of writes the log never empties beside it, and only a checkpoint with no write in between lets the next
/// transaction start the log over. So once the log reaches twice the threshold, the writer checkpoints itself, as
/// SQLite would, copying only what the checkpointer has not, and the log starts over.
final class WALCheckpointer: Sendable {
    private let connection: DatabaseQueue
    private let threshold: Int32
    private let backstop: Int32
    private let running = Atomic(false)
    private let completed = Atomic(0)

    /// Opens the checkpointer's connection to the database at `path`, which is already in WAL mode.
    init(path: String, configuration: GRDB.Configuration, threshold: Int32) throws {
        connection = try DatabaseQueue(path: path, configuration: configuration)
        self.threshold = threshold
        let (doubled, overflow) = threshold.multipliedReportingOverflow(by: 2)
        backstop = overflow ? .max : doubled
    }

    /// How many checkpoints the checkpointer's connection has completed.
    var checkpoints: Int { completed.load(ordering: .acquiring) }

    /// Takes over checkpointing from the writer connection `db`. The hook refers to the checkpointer without
    /// retaining it: the store that owns both is alive while any write runs.
    func install(on db: Database) {
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, writer, _, pages in
                guard let context else { return SQLITE_OK }
                Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(pages: pages, writer: writer)
                return SQLITE_OK
            },
            Unmanaged.passUnretained(self).toOpaque()
        )
    }

    private func committed(pages: Int32, writer: OpaquePointer?) {
        if pages >= backstop {
            sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        guard pages >= threshold, running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        connection.asyncWriteWithoutTransaction { [self] db in
            // A checkpoint that fails (the disk, say) leaves the log as it was; the next commit past the threshold
            // tries again.
            if (try? db.checkpoint(.passive)) != nil { completed.add(1, ordering: .releasing) }
            running.store(false, ordering: .releasing)
        }
    }
}
