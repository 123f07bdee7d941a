import TransferdDomain

/// Writes of tasks and events that a batch of transfer reports holds back while it works through the reports, to
/// send them as one statement each (``TaskTransitions/flush(_:_:)``) instead of one per report: the tasks' rows, the
/// bookkeeping of the sessions whose tasks went idle (which reads the counters that the tasks' writes change), then
/// the events, in order, the sessions' own after their tasks'.
///
/// Whatever reads what a held write changes flushes first.
final class HeldWrites {
    private var tasks: [Int64: TransferTask] = [:]
    private var order: [Int64] = []
    private(set) var events: [EventLog.Entry] = []
    private(set) var idleSessions: [Int64] = []

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

    /// Hands over what is held, in order, and holds nothing more.
    func take() -> (tasks: [TransferTask], events: [EventLog.Entry], idleSessions: [Int64]) {
        defer { (tasks, order, events, idleSessions) = ([:], [], [], []) }
        return (order.compactMap { tasks[$0] }, events, idleSessions)
    }
}
