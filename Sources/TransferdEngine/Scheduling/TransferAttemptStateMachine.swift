/// The lifecycle of one attempt at a task's transfer on this instance: claimed, then transferring once its response
/// arrived (its bytes counted from those earlier attempts kept), then ending once it is over and its end is being
/// recorded (it holds no worker and no connection then, though it stays registered until the end is committed).
///
/// Beside the phase it keeps the first reason it was asked to stop for (later ones change nothing; a client's stop
/// while it ends still says that its task's row changed), and the final response until a write records it.
package struct TransferAttemptStateMachine: Sendable {
    package enum Phase: Sendable, Equatable {
        case claimed
        case transferring
        /// Over, its end being recorded; `began` says whether its response had arrived.
        case ending(began: Bool)
    }

    package private(set) var phase = Phase.claimed
    package private(set) var interruption: ActiveTransfer.Interruption?
    /// The final response, until a write has recorded it.
    package private(set) var unrecordedResponse: ArrivedResponse?

    package init() {}

    /// Its response arrived: it transfers. Nothing once it ends.
    package mutating func responseBegan() {
        if phase == .claimed { phase = .transferring }
    }

    /// Its final response arrived; the next checkpoint or the end records it.
    package mutating func responseArrived(_ response: ArrivedResponse) {
        unrecordedResponse = response
    }

    /// A write recorded the final response.
    package mutating func responseRecorded() {
        unrecordedResponse = nil
    }

    /// Asked to stop for `reason`: kept when it is the first.
    package mutating func interrupt(_ reason: ActiveTransfer.Interruption) {
        if interruption == nil { interruption = reason }
    }

    /// It is over; its end is being recorded.
    package mutating func ended() {
        switch phase {
        case .claimed: phase = .ending(began: false)
        case .transferring: phase = .ending(began: true)
        case .ending: break
        }
    }

    /// Whether it still holds a worker and a connection to its origin.
    package var isUnderWay: Bool {
        if case .ending = phase { false } else { true }
    }

    /// Whether its live counters say more than the stored task: its response arrived.
    package var hasBegun: Bool {
        phase == .transferring || phase == .ending(began: true)
    }

    /// Whether it may be stopped to give its worker to another tenant: under way and not asked to stop yet.
    package var isPreemptible: Bool {
        isUnderWay && interruption == nil
    }

    /// Whether what the lease left of the task's row may still be trusted: no client stopped the task and the lease
    /// was not lost, both of which change the row behind this instance's back.
    package var trustsLeasedRow: Bool {
        switch interruption {
        case .byClient?, .leaseLost?: false
        default: true
        }
    }
}
