import Foundation

/// The `Retry-After` header of an answer (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, as the wait from `now`.
package enum RetryAfter {
    /// The wait `value` asks for; nil without one, or for one that is neither form.
    package static func parse(_ value: String?, now: Date) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Int(value), seconds >= 0 { return .seconds(seconds) }
        guard let date = HTTPDate.date(from: value) else { return nil }
        return .milliseconds(Int64(max(0, date.timeIntervalSince(now)) * 1000))
    }
}
