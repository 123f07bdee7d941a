import Foundation

/// `task.authentication_challenge` (didReceive challenge): where credentials are asked for, how many answers failed
/// before, and until when an answer is awaited.
package struct ChallengeIssued: Codable, Sendable, Equatable {
    package var protectionSpace: ProtectionSpace
    package var previousFailureCount: Int
    package var answerBefore: Date

    package init(_ challenge: AuthenticationChallenge) {
        protectionSpace = challenge.protectionSpace
        previousFailureCount = challenge.previousFailureCount
        answerBefore = challenge.expiresAt
    }
}
