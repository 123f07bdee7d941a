import Foundation

/// The IMF-fixdate of HTTP headers (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`.
package enum HTTPDate {
    // A formatter per call: these headers are rare enough, and DateFormatter is not safe to share across threads.
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }

    package static func string(from date: Date) -> String {
        formatter().string(from: date)
    }

    package static func date(from text: String) -> Date? {
        formatter().date(from: text)
    }
}
