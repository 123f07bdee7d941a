import Synchronization
import TransferdDomain
import TransferdStorage

/// A transfer under way on this instance: its live byte counters (for polling between checkpoints), its own
/// bandwidth limit, until when its lease can be counted on, and the means to stop it.
package final class ActiveTransfer: Sendable {
    /// Why a transfer was stopped before it finished.
    package enum Interruption: Sendable, Equatable {
        /// The client suspended or cancelled the task (through any instance); the state machine already knows.
        case byClient
        /// The lease could not be renewed in time, or another instance holds it now: the task is no longer this
        /// instance's to run.
        case leaseLost
        /// No byte arrived for `timeoutIntervalForRequest`.
        case stalled
        /// It moved `bytes` in `seconds`, below the service's minimum rate.
        case tooSlow(bytes: Int64, seconds: Double)
        /// The task outlived `timeoutIntervalForResource`.
        case outlivedResource
        /// The data directory reached its free-space floor.
        case outOfSpace
        /// Its tenant keeps more bytes than its quota of stored bytes allows.
        case overQuota(QuotaBreach)
        /// Its tenant held more than its share of the workers while another tenant's work waited: the task goes back
        /// to its queue, its checkpoint kept.
        case preempted
    }

    private struct State {
        package var bytesReceived: Int64 = 0
        package var bytesExpected: Int64 = -1
        package var lastActivity = ContinuousClock.now
        package var attempt = TransferAttemptStateMachine()
        package var lease: LeaseStateMachine
        package var partialFile: PartialFileLock?
        package var leasedRow: TaskEnding.Basis?
        package var limits: [BandwidthLimit]?
    }

    package let taskID: Int64
    package let kind: TransferTask.Kind
    /// The attempt this transfer is, from 1: its requests' metrics say so.
    package let attempt: Int
    /// When the attempt began (its claim).
    package let startedAt = ContinuousClock.now
    /// The session's queue for the origin, for the per-host connection limit.
    package let queue: HostQueue
    /// The tenant whose task it is.
    package let tenantID: Int64
    /// The task's `maxBytesPerSecond`, changeable while the transfer runs.
    package let limit: BandwidthLimit
    /// The attempt's span, which what happens on its way is noted in.
    package let trace = AttemptTrace()
    private let state: Mutex<State>
    private let interrupted = Doorbell()
    private let timelines = Mutex<[RequestTimeline]>([])

    /// A transfer whose lease this instance can count on until `leaseHeldUntil`.
    package init(
        taskID: Int64,
        kind: TransferTask.Kind,
        attempt: Int = 1,
        queue: HostQueue,
        tenantID: Int64,
        maxBytesPerSecond: Int64?,
        leaseHeldUntil: ContinuousClock.Instant
    ) {
        self.taskID = taskID
        self.kind = kind
        self.attempt = attempt
        self.queue = queue
        self.tenantID = tenantID
        limit = BandwidthLimit(bytesPerSecond: maxBytesPerSecond)
        state = Mutex(State(lease: LeaseStateMachine(heldUntil: leaseHeldUntil)))
    }

    /// The transfer of `task`'s next attempt, for `tenantID`, whose lease this instance can count on until
    /// `leaseHeldUntil`.
    package convenience init(of task: TransferTask, tenantID: Int64, leaseHeldUntil: ContinuousClock.Instant) {
        self.init(
            taskID: task.rowID,
            kind: task.kind,
            attempt: task.attempts.count + 1,
            queue: HostQueue(sessionID: task.sessionId, origin: task.origin),
            tenantID: tenantID,
            maxBytesPerSecond: task.maxBytesPerSecond,
            leaseHeldUntil: leaseHeldUntil
        )
    }

    /// Every limit its bytes pass through: its own, until it joined the shared ones (``pass(through:)``).
    package var limits: [BandwidthLimit] {
        state.withLock { $0.limits } ?? [limit]
    }

    /// Makes its bytes pass through `limits` (``BandwidthLimits/join(_:sessionSchedule:)``).
    package func pass(through limits: [BandwidthLimit]) {
        state.withLock { $0.limits = limits }
    }

    /// Starts timing a request of this attempt.
    func timeline(url: String, method: String) -> RequestTimeline {
        let timeline = RequestTimeline(attempt: attempt, url: url, method: method)
        timelines.withLock { $0.append(timeline) }
        return timeline
    }

    /// The metrics of every request this attempt made, in the order they began.
    package var transactions: [TransactionMetrics] {
        timelines.withLock { $0 }.map(\.transaction)
    }

    package var counters: (received: Int64, expected: Int64) {
        state.withLock { ($0.bytesReceived, $0.bytesExpected) }
    }

    /// The counters once the response has arrived; nil before, when the stored task knows better (the bytes kept
    /// from earlier attempts, an upload's length).
    package var liveCounters: (received: Int64, expected: Int64)? {
        state.withLock { $0.attempt.hasBegun ? ($0.bytesReceived, $0.bytesExpected) : nil }
    }

    /// When the transfer last made progress (or started), for stall detection.
    package var lastActivity: ContinuousClock.Instant {
        state.withLock { $0.lastActivity }
    }

    /// The response arrived: counting starts at `received` (the bytes kept from earlier attempts).
    package func begin(received: Int64, expected: Int64) {
        state.withLock {
            $0.bytesReceived = received
            $0.bytesExpected = expected
            $0.attempt.responseBegan()
            $0.lastActivity = ContinuousClock.now
        }
    }

    /// The attempt is over and its end is being recorded: it no longer holds a worker, nor a connection to its
    /// origin, though it stays registered (and its lease renewed) until its end is committed.
    package func beginEnding() {
        state.withLock { $0.attempt.ended() }
    }

    /// Whether it still holds a worker and a connection to its origin: it has not begun ending.
    package var isUnderWay: Bool {
        state.withLock { $0.attempt.isUnderWay }
    }

    /// Whether it may be stopped to give its worker to another tenant.
    package var isPreemptible: Bool {
        state.withLock { $0.attempt.isPreemptible }
    }

    /// The attempt holds its task's partial file (a download's) until its end is recorded: the end removes what the
    /// attempt published from it when the task does not take it, and no other attempt may publish meanwhile.
    package func hold(_ partialFile: PartialFileLock) {
        state.withLock { $0.partialFile = partialFile }
    }

    /// Lets go of the partial file, once the end is recorded or given up; nothing the second time.
    package func releasePartialFile() {
        state.withLock { $0.partialFile.take() }?.release()
    }

    /// The attempt's final response arrived; the next checkpoint or the end records it.
    package func responseArrived(_ response: ArrivedResponse) {
        state.withLock { $0.attempt.responseArrived(response) }
    }

    /// The final response, until a write has recorded it.
    package var unrecordedResponse: ArrivedResponse? {
        state.withLock { $0.attempt.unrecordedResponse }
    }

    /// A write recorded the final response.
    package func responseRecorded() {
        state.withLock { $0.attempt.responseRecorded() }
    }

    /// `bytes` more arrived (from any of the transfer's connections).
    package func add(_ bytes: Int) {
        state.withLock {
            $0.bytesReceived += Int64(bytes)
            $0.lastActivity = ContinuousClock.now
        }
    }

    /// The transfer is alive though no byte arrived (it is held back by a bandwidth limit).
    package func touch() {
        state.withLock { $0.lastActivity = ContinuousClock.now }
    }

    /// How long this instance can still count on the transfer's lease at `now` (its own monotonic time).
    package func leaseLeft(at now: ContinuousClock.Instant = .now) -> Duration {
        state.withLock { $0.lease.left(at: now) }
    }

    /// A renewal of the lease answered (nil: the task is no longer this instance's), counted on until `safeUntil`
    /// when renewed; a renewal also means the task's row changed. A lost lease stops the transfer.
    package func leaseRenewalAnswered(_ renewal: LeaseRenewal<TaskState>?, safeUntil: ContinuousClock.Instant) {
        let held = state.withLock { state in
            if case .renewed? = renewal { state.leasedRow = nil }
            return state.lease.renewalAnswered(renewal, safeUntil: safeUntil)
        }
        if !held { interrupt(.leaseLost) }
    }

    /// The task's row as its lease left it, with its revision, while nothing is known to have changed it since: no
    /// write of this instance, no client's suspend or cancel, the lease still safe. The transfer's end is worked out
    /// from it without reading the row again (and is written only if the row is still that).
    package var leasedRow: TaskEnding.Basis? {
        state.withLock { $0.attempt.trustsLeasedRow && $0.lease.isHeld(at: .now) ? $0.leasedRow : nil }
    }

    /// The lease left the task's row as `row`.
    package func leased(as row: TaskEnding.Basis) {
        state.withLock { $0.leasedRow = row }
    }

    /// A write of this instance changed the task's row.
    package func rowWritten() {
        state.withLock { $0.leasedRow = nil }
    }

    package var interruption: Interruption? {
        state.withLock { $0.attempt.interruption }
    }

    /// Stops the transfer; the first reason given wins.
    package func interrupt(_ reason: Interruption) {
        state.withLock { $0.attempt.interrupt(reason) }
        interrupted.ring()
    }

    /// Returns once the transfer is interrupted, or when the calling task is cancelled.
    package func waitForInterruption() async {
        while interruption == nil, !Task.isCancelled {
            await interrupted.wait(timeout: nil)
        }
    }
}
