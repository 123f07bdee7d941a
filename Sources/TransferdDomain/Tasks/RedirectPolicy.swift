import Foundation

/// What a transfer does with a redirect, the answer NSURLSession's `willPerformHTTPRedirection` gives: follow it
/// (the default), follow it only to the same origin, or never. A redirect not followed completes the task with the
/// 3xx response as its response, and its body as the content.
package enum RedirectPolicy: String, Codable, Sendable, CaseIterable {
    case follow
    /// Only to the same scheme, host and port.
    case sameOrigin
    case none

    /// Whether a redirect from `from` to `to` is followed.
    package func follows(from: String, to: String) -> Bool {
        switch self {
        case .follow: true
        case .none: false
        case .sameOrigin: (try? Destination(from))?.isSameOrigin(as: to) == true
        }
    }

    /// Decoded from its name; any other value is refused with the names it may take.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let policy = RedirectPolicy(rawValue: try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "must be one of \(Self.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        self = policy
    }
}
