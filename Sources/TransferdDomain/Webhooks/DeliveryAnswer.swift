/// How a subscriber answered one attempt.
package enum DeliveryAnswer: Sendable, Equatable {
    case answered(status: Int, retryAfter: Duration?)
    /// No answer: timeout or connection error.
    case failed(String)

    package var status: Int? {
        if case .answered(let status, _) = self { status } else { nil }
    }

    package var retryAfter: Duration? {
        if case .answered(429, let retryAfter) = self { return retryAfter }
        if case .answered(503, let retryAfter) = self { return retryAfter }
        return nil
    }

    package var error: String? {
        switch self {
        case .answered(let status, _) where !(200..<300).contains(status): "The subscriber answered \(status)."
        case .answered: nil
        case .failed(let message): message
        }
    }
}
