import TransferdDomain

/// Writes of tasks and events that a batch of transfer reports holds back while it works through the reports, to
/// send them as one statement each (``TaskTransitions/flush(_:_:)``) instead of one per report: the tasks' rows, sent
/// with the events, in order, the sessions' own after their tasks'.
///
/// It keeps the workloads of the tasks' sessions as they were read with the tasks (their rows locked), and moves
/// them by each task's change as the change is taken: the bookkeeping of a session whose tasks went idle needs no
/// read of its row. A session settled once is read again the next time (its bookkeeping may have changed it).
///
/// Whatever reads what a held write changes flushes first.
final class HeldWrites {
    private var tasks: [Int64: TransferTask] = [:]
    private var order: [Int64] = []
    private(set) var events: [EventLog.Entry] = []
    private var idleSessions: [Int64] = []
    /// Each task's state as written, by row id.
    private var written: [Int64: TaskState]
    /// The sessions' workloads as written, by session row id.
    private var workloads: [Int64: SessionWorkload]

    /// Whether what is held may be written before the batch is worked out (a background task's transfer flushes
    /// it as it completes, to count its transfers); not when the batch is one statement at the end (``TaskEnding``).
    let flushesEarly: Bool

    /// Holds the writes of `tasks`, read with their sessions' `workloads`.
    init(tasks: [TransferTask] = [], workloads: [Int64: SessionWorkload] = [:], flushesEarly: Bool = true) {
        written = Dictionary(tasks.map { ($0.rowID, $0.state) }, uniquingKeysWith: { first, _ in first })
        self.workloads = workloads
        self.flushesEarly = flushesEarly
    }

    /// A write asked for what is held before the end of a batch that is written as one statement.
    struct FlushedEarly: Error {}

    var isEmpty: Bool { order.isEmpty && events.isEmpty && idleSessions.isEmpty }

    /// The task's row is written as it is now (the last hold of a task wins).
    func hold(_ task: TransferTask) {
        if tasks.updateValue(task, forKey: task.rowID) == nil { order.append(task.rowID) }
    }

    func hold(_ entries: [EventLog.Entry]) {
        events += entries
    }

    /// The session is settled once its tasks' rows are written.
    func settle(sessionID: Int64) {
        if !idleSessions.contains(sessionID) { idleSessions.append(sessionID) }
    }

    /// Hands over what is held, in order, with the sessions to settle and their workloads once the tasks are written
    /// (nil: to be read), and holds nothing more.
    func take() -> (tasks: [TransferTask], events: [EventLog.Entry], idleSessions: [(id: Int64, workload: SessionWorkload?)]) {
        let taken = order.compactMap { tasks[$0] }
        for task in taken {
            if let old = written[task.rowID], let workload = workloads[task.sessionId] {
                workloads[task.sessionId] = workload.moved(from: old, to: task.state)
            } else {
                workloads[task.sessionId] = nil
            }
            written[task.rowID] = task.state
        }
        let idle = idleSessions.map { (id: $0, workload: workloads.removeValue(forKey: $0)) }
        defer { (tasks, order, events, idleSessions) = ([:], [], [], []) }
        return (taken, events, idle)
    }
}
