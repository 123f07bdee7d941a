import Foundation

/// The health of one endpoint as a value: feed it what happened to a delivery or what an operator did, get back what
/// to do. No I/O happens here; the owner persists `health` and performs the action in one transaction.
///
/// While failing, one probe (the head delivery of one session) goes out at growing intervals, capped by the policy
/// (tighter early in an outage), or when the subscriber's `Retry-After` says. The first 2xx, a probe's or any other,
/// makes the endpoint catch up: every session's waiting head is due at once. Failing without a break for
/// `disableAfter` disables it, as does a 410 Gone at once.
package struct EndpointHealthMachine: Sendable {
    package enum Input: Sendable, Equatable {
        /// An attempt was answered 2xx.
        case acknowledged
        /// An attempt failed (no answer, or a status other than 2xx and 410); `probe` when it was the probe.
        case failed(retryAfter: Duration?, probe: Bool)
        /// The subscriber answered 410 Gone.
        case gone
        /// An instance would send a probe, and hold it out until `until`.
        case probeClaimed(until: Date)
        /// The sessions' waiting heads were made due.
        case caughtUp
        /// An operator turned the endpoint back on (`POST …/webhook/enable`, or setting the webhook again).
        case enabled
    }

    package enum Action: Sendable, Equatable {
        case none
        /// Persist `failing`: attempts wait for the probe, or for their own retries.
        case startFailing
        /// Persist `probing`, and send the claimed head as the probe.
        case sendProbe
        /// Persist `failing` with the next probe at `at`.
        case scheduleProbe(at: Date)
        /// Persist `catchingUp`, make every session's waiting head due now, and wake the dispatcher.
        case catchUp
        /// Persist `healthy`.
        case finishCatchUp
        /// Persist `disabled`; write `webhook.disabled` and tell the tenant's operational webhook.
        case disable(reason: String)
    }

    package private(set) var health: EndpointHealth
    let policy: DeliveryPolicy

    package init(_ health: EndpointHealth, policy: DeliveryPolicy) {
        self.health = health
        self.policy = policy
    }

    package mutating func handle(_ input: Input, at now: Date) -> Action {
        switch (health, input) {
        case (.disabled, .enabled), (.failing, .enabled), (.probing, .enabled), (.failing, .acknowledged), (.probing, .acknowledged):
            health = .catchingUp
            return .catchUp
        case (.healthy, .enabled), (.catchingUp, .enabled), (.healthy, .acknowledged), (.catchingUp, .acknowledged):
            return .none
        case (.disabled, _):
            return .none

        case (_, .gone):
            return disable(at: now, reason: "The subscriber answered 410 Gone.")

        case (.healthy, .failed(let retryAfter, _)), (.catchingUp, .failed(let retryAfter, _)):
            let next = nextProbe(after: 0, since: now, retryAfter: retryAfter, now: now)
            health = .failing(.init(since: now, failedProbes: 0, nextProbeAt: next))
            return .startFailing
        case (.failing(let failure), .failed(let retryAfter, let probe)), (.probing(let failure, _), .failed(let retryAfter, let probe)):
            if now.timeIntervalSince(failure.since) >= policy.disableAfter.timeInterval {
                return disable(at: now, reason: "The subscriber has failed every attempt since \(failure.since.formatted(.iso8601)).")
            }
            guard probe else { return .none }
            let failed = failure.failedProbes + 1
            let next = nextProbe(after: failed, since: failure.since, retryAfter: retryAfter, now: now)
            health = .failing(.init(since: failure.since, failedProbes: failed, nextProbeAt: next))
            return .scheduleProbe(at: next)

        case (.failing(let failure), .probeClaimed(let until)) where failure.nextProbeAt <= now:
            health = .probing(failure, until: until)
            return .sendProbe
        case (.probing(let failure, let out), .probeClaimed(let until)) where out <= now:
            health = .probing(failure, until: until)
            return .sendProbe
        case (_, .probeClaimed):
            return .none

        case (.catchingUp, .caughtUp):
            health = .healthy
            return .finishCatchUp
        case (_, .caughtUp):
            return .none
        }
    }

    private mutating func disable(at now: Date, reason: String) -> Action {
        health = .disabled(at: now, reason: reason)
        return .disable(reason: reason)
    }

    /// When to probe after `failedProbes` failed probes of an outage that began at `since`.
    private func nextProbe(after failedProbes: Int, since: Date, retryAfter: Duration?, now: Date) -> Date {
        let failingFor = Duration.milliseconds(Int64(max(0, now.timeIntervalSince(since)) * 1000))
        let delay = policy.probeDelay(afterFailedProbes: failedProbes, failingFor: failingFor, retryAfter: retryAfter)
        return now.addingTimeInterval(delay.timeInterval)
    }
}
