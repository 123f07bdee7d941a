/// The lifecycle of a fetch schedule as a value: `scheduled` until a run falls due, `running` while the run's task
/// is unfinished, `paused` when a client paused it (a run under way finishes all the same). A run never starts while
/// the previous one is under way. No I/O happens here.
package struct FetchScheduleStateMachine: Sendable {
    /// What the schedule is doing: the state is derived from it.
    package struct Phase: Sendable, Equatable {
        package var paused: Bool
        /// The task identifier of the run under way.
        package var runningTask: Int64?

        package init(paused: Bool, runningTask: Int64?) {
            (self.paused, self.runningTask) = (paused, runningTask)
        }

        package var state: State {
            paused ? .paused : runningTask == nil ? .scheduled : .running
        }
    }

    package enum State: String, Codable, Sendable, CaseIterable {
        case scheduled, running, paused
    }

    package enum Input: Sendable, Equatable {
        /// Its next run's time came.
        case due
        /// The run's task was created.
        case runStarted(taskIdentifier: Int64)
        /// The task of a run completed.
        case runEnded(taskIdentifier: Int64)
        case pause
        case resume
    }

    package enum Action: Sendable, Equatable {
        case none
        /// Create the run's task, and set the next run's time.
        case startRun
        /// Judge the run's task, write `fetch.performed`, keep or prune versions.
        case settleRun
        /// Set the next run's time afresh: it was paused.
        case reschedule
    }

    package typealias IllegalTransition = TransferdDomain.IllegalTransition<State>

    package private(set) var phase: Phase

    package init(_ phase: Phase) {
        self.phase = phase
    }

    package mutating func handle(_ input: Input) throws(IllegalTransition) -> Action {
        switch input {
        case .due:
            return phase.state == .scheduled ? .startRun : .none
        case .runStarted(let taskIdentifier):
            guard phase.runningTask == nil else { throw IllegalTransition(from: phase.state, input: "runStarted") }
            phase.runningTask = taskIdentifier
            return .none
        case .runEnded(let taskIdentifier):
            // Another instance settled it first, or the run is not this one: nothing to do.
            guard phase.runningTask == taskIdentifier else { return .none }
            phase.runningTask = nil
            return .settleRun
        case .pause:
            phase.paused = true
            return .none
        case .resume:
            guard phase.paused else { return .none }
            phase.paused = false
            return .reschedule
        }
    }
}
