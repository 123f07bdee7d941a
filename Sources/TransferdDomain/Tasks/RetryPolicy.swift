import Foundation

/// When a transfer that failed transiently is tried again: exponential backoff from `initialDelay`, doubling up to
/// `maximumDelay`, spread by ±`jitter`, and never sooner than the origin's `Retry-After`.
package struct RetryPolicy: Sendable {
    package var initialDelay: Duration
    package var maximumDelay: Duration
    /// Fraction (0–1) by which each wait is randomly lengthened or shortened.
    package var jitter: Double

    package init(initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(300), jitter: Double = 0.2) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.jitter = jitter
    }

    /// The wait before the next attempt after `failures` consecutive failed ones.
    package func delay(afterFailures failures: Int, retryAfter: Duration?, random: Double = .random(in: -1...1)) -> Duration {
        let exponent = Double(max(0, failures - 1))
        let backoff = min(initialDelay.timeInterval * pow(2, exponent), maximumDelay.timeInterval) * (1 + jitter * random)
        return max(.milliseconds(Int64(backoff * 1000)), retryAfter ?? .zero)
    }

    /// This policy with the session's own backoff bounds, where it sets them.
    package func bounded(by configuration: SessionConfiguration) -> RetryPolicy {
        var policy = self
        if let seconds = configuration.retryInitialDelay { policy.initialDelay = .milliseconds(Int64(seconds * 1000)) }
        if let seconds = configuration.retryMaximumDelay { policy.maximumDelay = .milliseconds(Int64(seconds * 1000)) }
        return policy
    }
}
