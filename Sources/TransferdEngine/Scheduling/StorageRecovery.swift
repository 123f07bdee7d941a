import Foundation
import ServiceLifecycle
import TransferdDomain
import TransferdStorage

/// Transfers that stopped for disk space (`waitingReason: insufficientStorage`) start again as soon as the data
/// directory is above its floor once more, not at the end of a backoff that may have grown to minutes: it looks every
/// `interval`, with a read; only tasks found waiting cost a write (an idle service wrote a transaction every look).
package struct StorageRecovery: Service {
    let store: any Store
    let disk: DiskSpace
    let loop: WakeUpLoop
    let interval: Duration

    package init(store: any Store, disk: DiskSpace, loop: WakeUpLoop, interval: Duration = .seconds(2)) {
        self.store = store
        self.disk = disk
        self.loop = loop
        self.interval = interval
    }

    package func run() async throws {
        await loop.run("resume transfers waiting for disk space") {
            let now = loop.clock.now
            if !disk.isBelowFloor, try await store.lookup({ try await $0.queue.anyWaiting(for: .insufficientStorage, at: now) }) {
                try await store.write { repositories in
                    if try await repositories.queue.wake(waitingFor: .insufficientStorage, at: now) > 0 { repositories.announce(.work) }
                }
            }
            return now.addingTimeInterval(interval.timeInterval)
        }
    }
}
