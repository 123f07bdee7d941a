import Testing
import TransferdDomain

/// The lease's machine over every state and renewal: held until later, held until a past instant (expired,
/// unrenewed), or lost; renewed to a later or an earlier instant, busy, or answered without the row.
@Suite struct LeaseStateMachineTests {
    static let now = ContinuousClock.now
    static let later = now + .seconds(10)
    static let past = now - .seconds(1)

    enum Start: CaseIterable, CustomTestStringConvertible {
        case heldUntilLater, heldUntilPast, lost

        var machine: LeaseStateMachine {
            var machine = LeaseStateMachine(heldUntil: self == .heldUntilPast ? LeaseStateMachineTests.past : LeaseStateMachineTests.later)
            if self == .lost { machine.renewalAnswered(LeaseRenewal<Void>?.none, safeUntil: LeaseStateMachineTests.later) }
            return machine
        }

        var testDescription: String { "\(self)" }
    }

    enum Renewal: CaseIterable, CustomTestStringConvertible {
        case renewedLater, renewedEarlier, busy, notTheRenewers

        func feed(_ machine: inout LeaseStateMachine) -> Bool {
            switch self {
            case .renewedLater: machine.renewalAnswered(LeaseRenewal.renewed(()), safeUntil: LeaseStateMachineTests.now + .seconds(20))
            case .renewedEarlier: machine.renewalAnswered(LeaseRenewal.renewed(()), safeUntil: LeaseStateMachineTests.now + .seconds(5))
            case .busy: machine.renewalAnswered(LeaseRenewal<Void>.busy, safeUntil: LeaseStateMachineTests.now + .seconds(20))
            case .notTheRenewers: machine.renewalAnswered(LeaseRenewal<Void>?.none, safeUntil: LeaseStateMachineTests.now + .seconds(20))
            }
        }

        var testDescription: String { "\(self)" }
    }

    /// Whether the lease is still the instance's, and how long it is counted on from `now` after the renewal.
    static func expected(_ start: Start, _ renewal: Renewal) -> (goesOn: Bool, left: Duration) {
        switch (start, renewal) {
        case (.lost, _), (_, .notTheRenewers): (false, .zero)
        case (_, .renewedLater): (true, .seconds(20))
        case (.heldUntilLater, .renewedEarlier), (.heldUntilLater, .busy): (true, .seconds(10))
        case (.heldUntilPast, .renewedEarlier): (true, .seconds(5))
        case (.heldUntilPast, .busy): (true, .zero)
        }
    }

    @Test(arguments: Start.allCases, Renewal.allCases)
    func everyStateAndRenewal(start: Start, renewal: Renewal) {
        var machine = start.machine
        let goesOn = renewal.feed(&machine)
        let (expectedGoesOn, expectedLeft) = Self.expected(start, renewal)
        #expect(goesOn == expectedGoesOn)
        #expect(machine.left(at: Self.now) == expectedLeft)
        #expect(machine.isHeld(at: Self.now) == (expectedLeft > .zero))
    }

}
