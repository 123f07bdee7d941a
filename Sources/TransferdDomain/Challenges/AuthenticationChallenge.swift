import Foundation

/// A challenge a task waits on (`waitingReason: authenticationChallenge`): the protection space, how many
/// credentials for it failed before, and until when an answer is awaited (the session's `challengeTimeout`).
package struct AuthenticationChallenge: Codable, Sendable, Equatable {
    package var protectionSpace: ProtectionSpace
    package var previousFailureCount: Int
    package var issuedAt: Date
    package var expiresAt: Date

    package init(protectionSpace: ProtectionSpace, previousFailureCount: Int, issuedAt: Date, expiresAt: Date) {
        self.protectionSpace = protectionSpace
        self.previousFailureCount = previousFailureCount
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}

/// The answer to a challenge, as the completion handler of `didReceiveChallenge` takes it.
package enum ChallengeAnswer: Sendable, Equatable {
    /// Where a credential is kept, like URLCredential.Persistence.
    package enum Persistence: String, Codable, Sendable, CaseIterable {
        /// For this task only.
        case none
        /// For the session's later requests to the same protection space, as URLCredentialStorage keeps it.
        case forSession
    }

    case useCredential(Credential, Persistence)
    case performDefaultHandling
    case cancelAuthenticationChallenge
    case rejectProtectionSpace
}
