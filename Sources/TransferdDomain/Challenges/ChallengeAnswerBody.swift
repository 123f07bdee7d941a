import Foundation

/// A challenge's answer as JSON, from `POST …/tasks/{n}/challenge` or a webhook subscriber's reply:
/// `{"disposition": "useCredential", "credential": {"user", "password"} or {"token"}, "persistence": "forSession"}`.
package struct ChallengeAnswerBody: Decodable, Sendable {
    package struct CredentialBody: Decodable, Sendable {
        var user: String?
        var password: String?
        var token: String?

        package init(user: String?, password: String?, token: String?) {
            (self.user, self.password, self.token) = (user, password, token)
        }
    }

    var disposition: String?
    var credential: CredentialBody?
    var persistence: String?

    package init(disposition: String?, credential: CredentialBody?, persistence: String?) {
        (self.disposition, self.credential, self.persistence) = (disposition, credential, persistence)
    }

    /// The answer, checked; the refusal names the field.
    package func validate() throws(DomainError) -> ChallengeAnswer {
        switch disposition {
        case "useCredential":
            return .useCredential(try validCredential(), try validPersistence())
        case "performDefaultHandling": return .performDefaultHandling
        case "cancelAuthenticationChallenge": return .cancelAuthenticationChallenge
        case "rejectProtectionSpace": return .rejectProtectionSpace
        case nil: throw .badRequest("`disposition` is required.")
        case .some(let other):
            throw .invalidField(
                "disposition",
                requirement:
                    "must be one of useCredential, performDefaultHandling, cancelAuthenticationChallenge, rejectProtectionSpace, not `\(other)`"
            )
        }
    }

    private func validCredential() throws(DomainError) -> Credential {
        switch (credential?.user, credential?.password, credential?.token) {
        case (.some(let user), let password, nil) where !user.isEmpty && !user.contains(":") && user.utf8.count <= 1024:
            guard (password ?? "").utf8.count <= 1024 else {
                throw .invalidField("credential.password", requirement: "must be at most 1024 bytes")
            }
            return .basic(user: user, password: password ?? "")
        case (nil, nil, .some(let token)) where !token.isEmpty && token.utf8.count <= 8192 && !token.contains(where: \.isNewline):
            return .bearer(token: token)
        default:
            throw .invalidField(
                "credential",
                requirement: "must hold either `user` (without a colon) and `password`, or a `token`, for useCredential"
            )
        }
    }

    private func validPersistence() throws(DomainError) -> ChallengeAnswer.Persistence {
        guard let persistence else { return .none }
        guard let value = ChallengeAnswer.Persistence(rawValue: persistence) else {
            throw .invalidField("persistence", requirement: "must be none or forSession")
        }
        return value
    }
}
