import Foundation
import NIOHTTP1
import TransferdDomain

/// The `Retry-After` header of a subscriber's answer (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
package enum RetryAfter {
    package static func parse(_ headers: HTTPHeaders, now: Date) -> Duration? {
        guard let value = headers.first(name: "retry-after")?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Int(value), seconds >= 0 { return .seconds(seconds) }
        guard let date = HTTPDate.date(from: value) else { return nil }
        return .milliseconds(Int64(max(0, date.timeIntervalSince(now)) * 1000))
    }
}
