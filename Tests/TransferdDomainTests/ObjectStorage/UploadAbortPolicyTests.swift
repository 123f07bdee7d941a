import Testing
import TransferdDomain

/// The lifecycle of an abandoned multipart upload's abort, as a table: forgotten once aborted or refused for good,
/// retried while it fails with its store left alone for a doubling while, and given up at the fifth failure.
@Suite struct UploadAbortPolicyTests {
    @Test(arguments: [
        (UploadAbortPolicy.Outcome.aborted, 0, 0, UploadAbortPolicy.Action.forget),
        (.aborted, 4, 9, .forget),
        (.refused, 0, 0, .forget),
        (.refused, 3, 2, .forget),
        (.failed, 0, 0, .retry(backoff: .seconds(60))),
        (.failed, 1, 1, .retry(backoff: .seconds(120))),
        (.failed, 2, 3, .retry(backoff: .seconds(480))),
        (.failed, 3, 6, .retry(backoff: .seconds(3600))),
        (.failed, 4, 4, .giveUp(backoff: .seconds(960))),
        (.failed, 9, 64, .giveUp(backoff: .seconds(3600))),
    ])
    func anAbortIsForgottenRetriedOrGivenUp(
        outcome: UploadAbortPolicy.Outcome,
        uploadFailures: Int,
        storeFailures: Int,
        action: UploadAbortPolicy.Action
    ) {
        #expect(UploadAbortPolicy().action(after: outcome, uploadFailures: uploadFailures, storeFailures: storeFailures) == action)
    }
}
