import Foundation
import Testing
import TransferdDomain

/// The endpoint health machine over every (state, input) pair: what it becomes and what it asks its owner to do.
@Suite struct EndpointHealthMachineTests {
    /// The machine's states, with a failing endpoint split by whether its probe is due, a probing one by whether its
    /// probe is still out, and one that has failed longer than the policy allows.
    enum Start: CaseIterable, CustomTestStringConvertible {
        case healthy, catchingUp, failingProbeDue, failingProbeLater, probing, probeOverdue, failingTooLong, disabled

        var health: EndpointHealth {
            switch self {
            case .healthy: .healthy
            case .catchingUp: .catchingUp
            case .failingProbeDue: .failing(failure)
            case .failingProbeLater: .failing(EndpointHealth.Failure(since: since, failedProbes: 3, nextProbeAt: now + 30))
            case .probing: .probing(failure, until: now + 10)
            case .probeOverdue: .probing(failure, until: now - 1)
            case .failingTooLong: .failing(EndpointHealth.Failure(since: now - 6 * 86_400, failedProbes: 40, nextProbeAt: now + 30))
            case .disabled: .disabled(at: since, reason: "gone")
            }
        }

        var testDescription: String { "\(self)" }
    }

    enum Input: CaseIterable, CustomTestStringConvertible {
        case acknowledged, attemptFailed, probeFailed, probeFailedWithRetryAfter, gone, probeClaimed, caughtUp, enabled

        var input: EndpointHealthMachine.Input {
            switch self {
            case .acknowledged: .acknowledged
            case .attemptFailed: .failed(retryAfter: nil, probe: false)
            case .probeFailed: .failed(retryAfter: nil, probe: true)
            case .probeFailedWithRetryAfter: .failed(retryAfter: .seconds(7), probe: true)
            case .gone: .gone
            case .probeClaimed: .probeClaimed(until: now + 20)
            case .caughtUp: .caughtUp
            case .enabled: .enabled
            }
        }

        var testDescription: String { "\(self)" }
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let since = now - 600
    static let failure = EndpointHealth.Failure(since: since, failedProbes: 3, nextProbeAt: now - 1)
    /// Probes after 1 s, doubling to 60 s; disabled after 5 days; no jitter.
    static let policy = DeliveryPolicy(jitter: 0)
    static let gone = "The subscriber answered 410 Gone."

    /// What each pair must give.
    static func expected(_ start: Start, _ input: Input) -> (EndpointHealth, EndpointHealthMachine.Action) {
        let tooLong = "The subscriber has failed every attempt since \((now - 6 * 86_400).formatted(.iso8601))."
        // Ten minutes into the outage: the wait doubles to 16 s, held to the early cap of 10 s.
        let afterFourthProbe = EndpointHealth.Failure(since: since, failedProbes: 4, nextProbeAt: now + 10)
        let startedFailing = EndpointHealth.Failure(since: now, failedProbes: 0, nextProbeAt: now + 1)
        switch (start, input) {
        case (.disabled, .enabled): return (.catchingUp, .catchUp)
        case (.disabled, _): return (start.health, .none)
        case (_, .gone): return (.disabled(at: now, reason: gone), .disable(reason: gone))

        case (.healthy, .acknowledged), (.catchingUp, .acknowledged), (.healthy, .enabled), (.catchingUp, .enabled):
            return (start.health, .none)
        case (.healthy, .attemptFailed), (.healthy, .probeFailed), (.catchingUp, .attemptFailed), (.catchingUp, .probeFailed):
            return (.failing(startedFailing), .startFailing)
        case (.healthy, .probeFailedWithRetryAfter), (.catchingUp, .probeFailedWithRetryAfter):
            return (.failing(.init(since: now, failedProbes: 0, nextProbeAt: now + 7)), .startFailing)
        case (.healthy, .probeClaimed), (.catchingUp, .probeClaimed), (.healthy, .caughtUp): return (start.health, .none)
        case (.catchingUp, .caughtUp): return (.healthy, .finishCatchUp)

        case (.failingTooLong, .attemptFailed), (.failingTooLong, .probeFailed), (.failingTooLong, .probeFailedWithRetryAfter):
            return (.disabled(at: now, reason: tooLong), .disable(reason: tooLong))
        case (_, .acknowledged), (_, .enabled): return (.catchingUp, .catchUp)
        case (_, .attemptFailed), (_, .caughtUp): return (start.health, .none)
        case (_, .probeFailed): return (.failing(afterFourthProbe), .scheduleProbe(at: now + 10))
        case (_, .probeFailedWithRetryAfter):
            return (.failing(.init(since: since, failedProbes: 4, nextProbeAt: now + 7)), .scheduleProbe(at: now + 7))
        case (.failingProbeDue, .probeClaimed), (.probing, .probeClaimed), (.probeOverdue, .probeClaimed):
            return start == .probing ? (start.health, .none) : (.probing(failure, until: now + 20), .sendProbe)
        case (.failingProbeLater, .probeClaimed), (.failingTooLong, .probeClaimed): return (start.health, .none)
        }
    }

    @Test(arguments: Start.allCases, Input.allCases)
    func transition(_ start: Start, _ input: Input) {
        var machine = EndpointHealthMachine(start.health, policy: Self.policy)

        let action = machine.handle(input.input, at: Self.now)

        let (health, expectedAction) = Self.expected(start, input)
        #expect(machine.health == health)
        #expect(action == expectedAction)
    }

    @Test func probesDoubleUpToTenSecondsInAnOutagesFirstHourThenToAMinuteAndRetryAfterIsTheWaitWithinBounds() {
        let early = (0..<6).map { Self.policy.probeDelay(afterFailedProbes: $0, failingFor: .seconds(3599), retryAfter: nil) }
        let late = (0..<9).map { Self.policy.probeDelay(afterFailedProbes: $0, failingFor: .seconds(3600), retryAfter: nil) }
        #expect(early == [1, 2, 4, 8, 10, 10].map { Duration.seconds($0) })
        #expect(late == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
        let hour = Duration.seconds(3600)
        #expect(Self.policy.probeDelay(afterFailedProbes: 8, failingFor: hour, retryAfter: .seconds(3)) == .seconds(3))
        #expect(
            Self.policy.probeDelay(afterFailedProbes: 0, failingFor: .zero, retryAfter: .zero) == .seconds(1),
            "no faster than the first"
        )
        #expect(
            Self.policy.probeDelay(afterFailedProbes: 0, failingFor: .zero, retryAfter: .seconds(864_000)) == Self.policy.maximumRetryAfter
        )
    }

    @Test func jitterNeverMakesAWaitLongerThanItsCap() {
        let jittered = DeliveryPolicy(jitter: 0.2)
        for random in [-1.0, 0, 1] {
            #expect(jittered.probeDelay(afterFailedProbes: 9, failingFor: .seconds(60), retryAfter: nil, random: random) <= .seconds(10))
            #expect(jittered.probeDelay(afterFailedProbes: 9, failingFor: .seconds(7200), retryAfter: nil, random: random) <= .seconds(60))
        }
        #expect(jittered.probeDelay(afterFailedProbes: 9, failingFor: .seconds(60), retryAfter: nil, random: -1) == .seconds(8))
    }
}
