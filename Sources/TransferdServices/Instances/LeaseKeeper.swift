import Foundation
import Logging
import ServiceLifecycle
import TransferdDomain
import TransferdEngine

/// Renews the leases of this instance's transfers and of the sessions whose deliveries it sends, every third of
/// the lease timeout. It stops the transfers it can no longer count on: one whose lease another instance holds now,
/// and one whose task no longer wants it (a change whose signal went astray). Each renewal lets a transfer count on
/// its lease for `Instance.safeLeaseDuration` more; one not renewed by then stops itself (`AttemptSupervisor`)
/// before any other instance may take its task over, even while a renewal hangs on the database. A lease whose row
/// a write holds at that moment is left for the next renewal. A session whose lease is lost gets no more deliveries
/// from this instance.
package struct LeaseKeeper: Service {
    let store: any Store
    let instance: Instance
    let transfers: ActiveTransfers
    let sending: SendingSessions
    let loop: WakeUpLoop

    package init(store: any Store, instance: Instance, transfers: ActiveTransfers, sending: SendingSessions, loop: WakeUpLoop) {
        self.store = store
        self.instance = instance
        self.transfers = transfers
        self.sending = sending
        self.loop = loop
    }

    package func run() async throws {
        await loop.run("renew leases") { await renew() }
    }

    /// One renewal; returns when the next is due: sooner after a failure, or when a lease was busy.
    private func renew() async -> Date {
        let now = loop.clock.now
        let asked = ContinuousClock.now
        let (ids, sessionIDs) = (transfers.all.map(\.taskID), sending.all)
        var renewed = true
        if !ids.isEmpty || !sessionIDs.isEmpty {
            let (instance, expiry) = (instance, instance.leaseExpiry(from: now))
            do {
                let (transfersRenewed, sessionsRenewed) = try await store.renew { repositories in
                    await (
                        ids.isEmpty ? [:] : try repositories.queue.renewLeases(ids: ids, owner: instance.id, until: expiry),
                        sessionIDs.isEmpty
                            ? [:] : try repositories.sessions.renewDeliveryLeases(sessionIDs: sessionIDs, owner: instance.id, until: expiry)
                    )
                }
                let safeUntil = asked + instance.safeLeaseDuration
                if sessionsRenewed.values.contains(where: { if case .busy = $0 { true } else { false } }) { renewed = false }
                for sessionID in sessionIDs { sending.leaseRenewalAnswered(sessionID, sessionsRenewed[sessionID], safeUntil: safeUntil) }
                for id in ids {
                    guard let transfer = transfers[id] else { continue }
                    let renewal = transfersRenewed[id]
                    transfer.leaseRenewalAnswered(renewal, safeUntil: safeUntil)
                    switch renewal {
                    case .busy?: renewed = false
                    case .renewed(let state)? where state != .running: transfer.interrupt(.byClient)
                    default: break
                    }
                }
            } catch {
                renewed = false
                loop.logger.warning("could not renew the leases of this instance's transfers", metadata: ["error": "\(error)"])
            }
        }
        return now.addingTimeInterval(renewed ? instance.renewalInterval : 1)
    }
}
