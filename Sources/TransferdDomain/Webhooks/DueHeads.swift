import Foundation

/// Which of the sessions' waiting heads go out now, read from the heads and their endpoints' health; no I/O happens
/// here.
///
/// Every head goes when its own schedule says, whatever its endpoint's health: that schedule alone dead-letters a
/// delivery. Each failing endpoint whose probe is due also sends one head early, the next to fall due, as its
/// probe. An endpoint catching up is named, for its sessions' heads to be made due first.
package struct DueHeads: Sendable {
    /// A head to send, and whether it goes as its endpoint's probe.
    package struct Pick: Sendable {
        package let head: DeliveryHead
        package let probe: Bool
    }

    package private(set) var picks: [Pick] = []
    /// The endpoints whose sessions' heads are to be made due now.
    package private(set) var catchingUp: [String] = []
    /// When the next head, retry or probe that is not due now falls due.
    package private(set) var nextDue: Date?

    /// `heads` are the earliest due first.
    package init(_ heads: [DeliveryHead], now: Date) {
        var probed: Set<String> = []
        for head in heads {
            switch head.endpoint?.health {
            case nil, .healthy:
                pick(head, now: now)
            case .catchingUp:
                if let key = head.endpoint?.key, !catchingUp.contains(key) { catchingUp.append(key) }
                pick(head, now: now)
            case .failing(let failure):
                failing(head, probeAt: failure.nextProbeAt, now: now, probed: &probed)
            case .probing(_, let until):
                failing(head, probeAt: until, now: now, probed: &probed)
            case .disabled:
                continue
            }
        }
    }

    /// A head of a failing endpoint: due by its own schedule, or else the probe when its endpoint's is due and not
    /// taken yet.
    private mutating func failing(_ head: DeliveryHead, probeAt: Date, now: Date, probed: inout Set<String>) {
        let key = head.endpoint?.key ?? ""
        if head.delivery.nextAttemptAt > now, probeAt <= now, !probed.contains(key) {
            probed.insert(key)
            picks.append(Pick(head: head, probe: true))
            return
        }
        if probeAt > now { later(probeAt) }
        pick(head, now: now)
    }

    private mutating func pick(_ head: DeliveryHead, now: Date) {
        if head.delivery.nextAttemptAt <= now { picks.append(Pick(head: head, probe: false)) } else { later(head.delivery.nextAttemptAt) }
    }

    private mutating func later(_ moment: Date) {
        nextDue = min(nextDue ?? moment, moment)
    }
}
