import Foundation
import TransferdDomain

extension TaskService {
    /// Answers the challenge task `taskIdentifier` waits on, as the completion handler of didReceiveChallenge: with a
    /// credential (sealed; kept for the session's protection space with `forSession`) the task runs again at once;
    /// default handling or a rejected space completes it with the 401; a cancel completes it `cancelled`.
    package func answerChallenge(_ answer: ChallengeAnswer, sessionID: Int64, taskIdentifier: Int64) async throws -> TransferTask {
        let vault = vault
        return try await store.write { repositories in
            guard var task = try await repositories.tasks.find(sessionID: sessionID, taskIdentifier: taskIdentifier) else {
                throw DomainError.notFound("No task has the identifier \(taskIdentifier) in this session.")
            }
            guard task.state == .running, let challenge = task.challenge, task.lease == nil else {
                throw DomainError.conflict("Task \(taskIdentifier) has no authentication challenge waiting for an answer.")
            }
            task.challenge = nil
            switch answer {
            case .useCredential(let credential, let persistence):
                let sealed = SealedCredential(protectionSpace: challenge.protectionSpace, sealed: try vault.seal(credential))
                task.credentials.keep(sealed)
                if persistence == .forSession, var session = try await repositories.sessions.find(id: sessionID) {
                    session.credentials.keep(sealed)
                    try await repositories.sessions.updateCredentials(of: session)
                }
                (task.nextAttemptAt, task.waitingReason) = (nil, nil)
                try await repositories.tasks.update(task)
                repositories.announce(.work)
            case .performDefaultHandling, .rejectProtectionSpace:
                let status = challenge.protectionSpace.isProxy ? 407 : 401
                let error = TransferError(
                    code: .badServerResponse,
                    message: "The server asked for credentials (HTTP \(status)) and none were given.",
                    statusCode: status
                )
                try await transitions.apply(.cancel(.init(error: error)), to: &task, repositories)
            case .cancelAuthenticationChallenge:
                try await transitions.apply(.cancel(.init()), to: &task, repositories)
            }
            return task
        }
    }
}
