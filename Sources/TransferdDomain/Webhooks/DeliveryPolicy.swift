import Foundation

/// When to try a delivery again, and how long to wait for the subscriber.
///
/// The default schedule is Svix's: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after each
/// failure; after the last, the delivery is dead-lettered. Each wait is spread by ±`jitter` so that many
/// failed deliveries do not come back at the same instant.
///
/// While an endpoint fails, probes go out after `firstProbeInterval`, doubling to `probeInterval` for the first
/// `probeBackoffAfter` of the outage (10 s in its first hour: a subscriber that is back is caught up within 10 s of
/// the common outage) and to `maximumProbeInterval` after it; it is disabled when it has failed without a break for
/// `disableAfter` (Svix's 5 days).
package struct DeliveryPolicy: Sendable {
    /// Waits before each attempt; the first is normally zero. Its length is the number of attempts.
    package var schedule: [Duration]
    /// How long the subscriber has to answer one attempt.
    package var timeout: Duration
    /// Fraction (0–1) by which each wait is randomly lengthened or shortened.
    package var jitter: Double
    /// Longest wait a `Retry-After` header can impose.
    package var maximumRetryAfter: Duration
    /// How long the previous secret keeps signing after a rotation.
    package var rotationWindow: Duration
    /// The wait before an endpoint's first probe, doubled after each failed probe up to `probeInterval`, then, once the
    /// outage is `probeBackoffAfter` old, up to `maximumProbeInterval`.
    package var firstProbeInterval: Duration
    /// The longest wait between probes early in an outage (`--webhook-probe-interval`).
    package var probeInterval: Duration
    /// How long an outage is early.
    package var probeBackoffAfter: Duration
    /// The longest wait between probes later in an outage (`--webhook-probe-max-interval`).
    package var maximumProbeInterval: Duration
    /// How long an endpoint may fail without a break before it is disabled.
    package var disableAfter: Duration

    package static let svixSchedule: [Duration] = [0, 5, 300, 1800, 7200, 18000, 36000, 36000].map { .seconds($0) }

    package init(
        schedule: [Duration] = svixSchedule,
        timeout: Duration = .seconds(15),
        jitter: Double = 0.2,
        maximumRetryAfter: Duration = .seconds(86_400),
        rotationWindow: Duration = .seconds(86_400),
        firstProbeInterval: Duration = .seconds(1),
        probeInterval: Duration = .seconds(10),
        probeBackoffAfter: Duration = .seconds(3600),
        maximumProbeInterval: Duration = .seconds(60),
        disableAfter: Duration = .seconds(5 * 86_400)
    ) {
        self.schedule = schedule
        self.timeout = timeout
        self.jitter = jitter
        self.maximumRetryAfter = maximumRetryAfter
        self.rotationWindow = rotationWindow
        self.firstProbeInterval = firstProbeInterval
        self.probeInterval = probeInterval
        self.probeBackoffAfter = probeBackoffAfter
        self.maximumProbeInterval = maximumProbeInterval
        self.disableAfter = disableAfter
    }

    /// The wait before the next attempt after `attempts` failed ones, or nil when the delivery is out of attempts.
    /// A `Retry-After` from the subscriber is honoured when it asks for longer (up to `maximumRetryAfter`).
    package func delay(afterFailedAttempts attempts: Int, retryAfter: Duration?, random: Double = .random(in: -1...1)) -> Duration? {
        guard attempts < schedule.count else { return nil }
        let scheduled = schedule[attempts] * (1 + jitter * random)
        guard let retryAfter else { return scheduled }
        return max(scheduled, min(retryAfter, maximumRetryAfter))
    }

    /// The wait before an endpoint's next probe after `failedProbes` failed ones, in an outage `failingFor` long. A
    /// `Retry-After` is the wait, within `firstProbeInterval` and `maximumRetryAfter`: a subscriber that says when it is
    /// back is probed then. Otherwise the wait doubles up to the outage's cap (`probeInterval` early, then
    /// `maximumProbeInterval`), jittered, and never longer than the cap.
    package func probeDelay(
        afterFailedProbes failedProbes: Int,
        failingFor: Duration,
        retryAfter: Duration?,
        random: Double = .random(in: -1...1)
    ) -> Duration {
        if let retryAfter { return min(max(retryAfter, firstProbeInterval), maximumRetryAfter) }
        let cap = failingFor < probeBackoffAfter ? probeInterval : maximumProbeInterval
        let doubled = firstProbeInterval * Double(1 << min(failedProbes, 30))
        return min(min(doubled, cap) * (1 + jitter * random), cap)
    }
}

extension Duration {
    package var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
