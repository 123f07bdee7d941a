import Testing
import TransferdEngine

/// The attempt's machine over every state and input: claimed, transferring, transferring and already asked to stop
/// (stalled), or ending after its response began; its response beginning, its end, or a client's stop.
@Suite struct TransferAttemptStateMachineTests {
    enum Start: CaseIterable, CustomTestStringConvertible {
        case claimed, transferring, stalled, ending

        var machine: TransferAttemptStateMachine {
            var machine = TransferAttemptStateMachine()
            if self != .claimed { machine.responseBegan() }
            if self == .stalled { machine.interrupt(.stalled) }
            if self == .ending { machine.ended() }
            return machine
        }

        var testDescription: String { "\(self)" }
    }

    enum Input: CaseIterable, CustomTestStringConvertible {
        case responseBegan, ended, stoppedByClient

        func feed(_ machine: inout TransferAttemptStateMachine) {
            switch self {
            case .responseBegan: machine.responseBegan()
            case .ended: machine.ended()
            case .stoppedByClient: machine.interrupt(.byClient)
            }
        }

        var testDescription: String { "\(self)" }
    }

    /// What the machine says after the input: its phase, why it stops, and what that allows.
    struct After: Equatable {
        var phase: TransferAttemptStateMachine.Phase
        var interruption: ActiveTransfer.Interruption?
        var hasBegun: Bool
        var isUnderWay: Bool
        var isPreemptible: Bool
        var trustsLeasedRow: Bool

        init(_ machine: TransferAttemptStateMachine) {
            phase = machine.phase
            interruption = machine.interruption
            hasBegun = machine.hasBegun
            isUnderWay = machine.isUnderWay
            isPreemptible = machine.isPreemptible
            trustsLeasedRow = machine.trustsLeasedRow
        }

        init(
            _ phase: TransferAttemptStateMachine.Phase,
            _ interruption: ActiveTransfer.Interruption?,
            began: Bool,
            underWay: Bool,
            preemptible: Bool,
            trusts: Bool
        ) {
            (self.phase, self.interruption, hasBegun, isUnderWay) = (phase, interruption, began, underWay)
            (isPreemptible, trustsLeasedRow) = (preemptible, trusts)
        }
    }

    static func expected(_ start: Start, _ input: Input) -> After {
        switch (start, input) {
        case (.claimed, .responseBegan), (.transferring, .responseBegan):
            After(.transferring, nil, began: true, underWay: true, preemptible: true, trusts: true)
        case (.claimed, .ended): After(.ending(began: false), nil, began: false, underWay: false, preemptible: false, trusts: true)
        case (.claimed, .stoppedByClient): After(.claimed, .byClient, began: false, underWay: true, preemptible: false, trusts: false)
        case (.transferring, .ended), (.ending, .ended), (.ending, .responseBegan):
            After(.ending(began: true), nil, began: true, underWay: false, preemptible: false, trusts: true)
        case (.transferring, .stoppedByClient):
            After(.transferring, .byClient, began: true, underWay: true, preemptible: false, trusts: false)
        case (.stalled, .responseBegan), (.stalled, .stoppedByClient):
            After(.transferring, .stalled, began: true, underWay: true, preemptible: false, trusts: true)
        case (.stalled, .ended): After(.ending(began: true), .stalled, began: true, underWay: false, preemptible: false, trusts: true)
        case (.ending, .stoppedByClient):
            After(.ending(began: true), .byClient, began: true, underWay: false, preemptible: false, trusts: false)
        }
    }

    @Test(arguments: Start.allCases, Input.allCases)
    func everyStateAndInput(start: Start, input: Input) {
        var machine = start.machine
        input.feed(&machine)
        #expect(After(machine) == Self.expected(start, input))
    }
}
