import Foundation
import NIOCore
import TransferdDomain
import TransferdStorage

/// What every runner works with: the guarded HTTP clients, the files on disk, where it reports, how often, the time,
/// and the bandwidth transfers share.
package struct TransferEnvironment: Sendable {
    package let destinations: DestinationGuard
    package let files: FileStore
    package let reporter: any TransferReporter
    /// How often progress is reported (and a download checkpointed).
    package let progressInterval: Duration
    package let clock: any WallClock
    /// The bandwidth limits transfers share: the service's, tenants' and sessions'.
    package let bandwidth: BandwidthLimits
    /// Opens the credentials that answer authentication challenges.
    package let vault: CredentialVault
    /// Tenants' stores, for downloads into buckets and uploads from them.
    package let objects: ObjectStores

    package init(
        destinations: DestinationGuard,
        files: FileStore,
        reporter: any TransferReporter,
        progressInterval: Duration,
        clock: any WallClock,
        bandwidth: BandwidthLimits,
        vault: CredentialVault,
        objects: ObjectStores
    ) {
        self.destinations = destinations
        self.files = files
        self.reporter = reporter
        self.progressInterval = progressInterval
        self.clock = clock
        self.bandwidth = bandwidth
        self.vault = vault
        self.objects = objects
    }

    /// When the job's attempt must end: the task's `timeoutIntervalForResource`; throws when that has passed.
    func deadline(of job: TransferJob) throws -> NIODeadline {
        let left = job.resourceDeadline.timeIntervalSince(clock.now)
        guard left > 0 else { throw TransferError.outlivedResource }
        return NIODeadline.now() + .milliseconds(Int64(left * 1000))
    }
}
