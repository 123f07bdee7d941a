/// How the multipart uploads that downloads into buckets abandoned are aborted in stores that may answer slowly or
/// never (a tenant's store is the tenant's to break): a short deadline per request and few tries, a store whose abort
/// failed left alone for a while, doubling, and an upload that keeps failing given up.
package struct UploadAbortPolicy: Sendable, Equatable {
    /// One request's deadline, and the times it is sent.
    package var requestTimeout: Duration
    package var requestAttempts: Int
    /// The failed aborts after which an upload is given up.
    package var maximumFailures: Int
    /// How long a store is left alone after its first failure in a row, doubling to `maximumBackoff`.
    package var firstBackoff: Duration
    package var maximumBackoff: Duration

    package init(
        requestTimeout: Duration = .seconds(10),
        requestAttempts: Int = 2,
        maximumFailures: Int = 5,
        firstBackoff: Duration = .seconds(60),
        maximumBackoff: Duration = .seconds(3600)
    ) {
        self.requestTimeout = requestTimeout
        self.requestAttempts = requestAttempts
        self.maximumFailures = maximumFailures
        self.firstBackoff = firstBackoff
        self.maximumBackoff = maximumBackoff
    }

    /// How an abort went.
    package enum Outcome: Sendable {
        /// The store aborted the upload, or had none by that id.
        case aborted
        /// The store refused for good (the store was removed, its key changed): nothing here can abort it.
        case refused
        /// No answer in time, or a failure that may pass (5xx, throttling, a connection that failed).
        case failed
    }

    /// What follows.
    package enum Action: Sendable, Equatable {
        /// The upload is forgotten: it is aborted, or cannot be.
        case forget
        /// The upload is tried again at a later pass; its store is left alone for `backoff`.
        case retry(backoff: Duration)
        /// The upload failed too often: it is forgotten (logged and counted), and its store left alone for `backoff`.
        case giveUp(backoff: Duration)
    }

    /// What follows an abort's `outcome`, for an upload that failed `uploadFailures` times before, in a store whose
    /// aborts failed `storeFailures` times in a row before.
    package func action(after outcome: Outcome, uploadFailures: Int, storeFailures: Int) -> Action {
        switch outcome {
        case .aborted, .refused:
            return .forget
        case .failed:
            let backoff = min(maximumBackoff, firstBackoff * (1 << min(storeFailures, 30)))
            return uploadFailures + 1 >= maximumFailures ? .giveUp(backoff: backoff) : .retry(backoff: backoff)
        }
    }
}
