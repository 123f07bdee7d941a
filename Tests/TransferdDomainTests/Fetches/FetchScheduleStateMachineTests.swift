import Testing
import TransferdDomain

/// The fetch schedule's machine over every (phase, input) pair: a run starts only when scheduled, a run's end is
/// settled once and only for the run under way, and pausing never stops a run that has begun.
@Suite struct FetchScheduleStateMachineTests {
    typealias Machine = FetchScheduleStateMachine
    typealias Phase = Machine.Phase

    static let scheduled = Phase(paused: false, runningTask: nil)
    static let running = Phase(paused: false, runningTask: 7)
    static let paused = Phase(paused: true, runningTask: nil)
    static let pausedRunning = Phase(paused: true, runningTask: 7)

    /// Phase before, input, phase after and action; a nil result is a refusal.
    static let table: [(Phase, Machine.Input, (Phase, Machine.Action)?)] = [
        (scheduled, .due, (scheduled, .startRun)),
        (running, .due, (running, .none)),
        (paused, .due, (paused, .none)),
        (pausedRunning, .due, (pausedRunning, .none)),

        (scheduled, .runStarted(taskIdentifier: 7), (running, .none)),
        (running, .runStarted(taskIdentifier: 8), nil),
        (paused, .runStarted(taskIdentifier: 7), (pausedRunning, .none)),
        (pausedRunning, .runStarted(taskIdentifier: 8), nil),

        (scheduled, .runEnded(taskIdentifier: 7), (scheduled, .none)),
        (running, .runEnded(taskIdentifier: 7), (scheduled, .settleRun)),
        (running, .runEnded(taskIdentifier: 6), (running, .none)),
        (paused, .runEnded(taskIdentifier: 7), (paused, .none)),
        (pausedRunning, .runEnded(taskIdentifier: 7), (paused, .settleRun)),

        (scheduled, .pause, (paused, .none)),
        (running, .pause, (pausedRunning, .none)),
        (paused, .pause, (paused, .none)),
        (pausedRunning, .pause, (pausedRunning, .none)),

        (scheduled, .resume, (scheduled, .none)),
        (running, .resume, (running, .none)),
        (paused, .resume, (scheduled, .reschedule)),
        (pausedRunning, .resume, (running, .reschedule)),
    ]

    @Test(arguments: 0..<table.count)
    func eachPhaseAndInput(_ row: Int) {
        let (phase, input, expected) = Self.table[row]
        var machine = Machine(phase)
        do {
            let action = try machine.handle(input)
            #expect(expected.map { $0.0 == machine.phase && $0.1 == action } == true, "\(phase) + \(input) → \(machine.phase), \(action)")
        } catch {
            #expect(expected == nil, "\(phase) + \(input) was refused")
            #expect(machine.phase == phase)
        }
    }

    @Test func theStateIsDerivedFromThePhase() {
        #expect(Self.scheduled.state == .scheduled)
        #expect(Self.running.state == .running)
        #expect(Self.paused.state == .paused)
        #expect(Self.pausedRunning.state == .paused)
    }
}
