import Foundation
import Synchronization

/// Shows followed transfers as they go: on a terminal, a progress bar per task redrawn in place (bytes, rate,
/// ETA); otherwise plain lines, one per change of phase and at most one per task every few seconds of progress.
final class TransferDisplay: Sendable {
    private let screen: LiveScreen<[FollowedTransfer]>?
    private let printed = Mutex<[String: (phase: FollowedTransfer.Phase, at: ContinuousClock.Instant)]>([:])

    /// Bars on a terminal, lines otherwise.
    init(live: Bool = Console.isTerminal) {
        screen = live ? LiveScreen([]) { Self.bars($0, height: Console.terminalHeight ?? 40) } : nil
    }

    /// Runs `body`, which shows transfers, while they are drawn; the last drawing stays on screen.
    func during<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        guard let screen else { return try await body() }
        return try await screen.drawing(body)
    }

    /// Shows `transfers` as they are now.
    func show(_ transfers: [FollowedTransfer]) {
        if let screen {
            screen.update { $0 = transfers }
            return
        }
        let now = ContinuousClock.now
        for transfer in transfers {
            let due = printed.withLock { printed in
                let previous = printed[transfer.reference]
                let phaseChanged = previous?.phase != transfer.phase
                guard phaseChanged || (transfer.phase == .transferring && now - previous!.at >= .seconds(5)) else { return false }
                printed[transfer.reference] = (transfer.phase, now)
                return true
            }
            if due { Console.line(Self.line(transfer)) }
        }
    }

    /// The bars that fit `height` lines: every transfer, or when they are more, those under way first and a line
    /// that counts the rest.
    static func bars(_ transfers: [FollowedTransfer], height: Int) -> [StyledLine] {
        guard transfers.count > height - 1 else { return transfers.map(bar) }
        let shown = (transfers.filter { !$0.phase.isFinished } + transfers.filter(\.phase.isFinished)).prefix(max(1, height - 2))
        let finished = transfers.filter(\.phase.isFinished)
        let failed = finished.filter { if case .failed = $0.phase { true } else { false } }.count
        let summary = "… \(transfers.count - shown.count) more: \(finished.count) of \(transfers.count) finished, \(failed) failed"
        return shown.map(bar) + [StyledLine([.init(text: summary, tone: .dim)])]
    }

    /// A transfer as one plain line.
    static func line(_ transfer: FollowedTransfer) -> String {
        var line = "\(transfer.reference) \(transfer.name): "
        switch transfer.phase {
        case .queued: line += "queued"
        case .waiting(let reason): line += "waiting (\(reason))"
        case .transferring, .saving:
            line += transfer.phase == .saving ? "saving " : ""
            line += [Units.percent(transfer.done, of: transfer.total), amounts(transfer), transfer.meter.bytesPerSecond.map(Units.rate)]
                .compactMap { $0 }.joined(separator: " ")
        case .succeeded: line += "completed, \(Units.bytes(transfer.done))"
        case .failed(let code, let message): line += "failed: \(code) (\(message))"
        }
        return line
    }

    /// A transfer as a progress bar line: reference, name, bar, percentage, bytes, rate and ETA.
    static func bar(_ transfer: FollowedTransfer) -> StyledLine {
        var parts: [StyledLine.Part] = [
            .init(text: transfer.reference + " ", tone: .dim), .init(text: transfer.name, flexible: true), .init(text: " "),
        ]
        switch transfer.phase {
        case .succeeded:
            parts.append(.init(text: meter(transfer), tone: .success))
            parts.append(.init(text: " 100% \(Units.bytes(transfer.done)) "))
            parts.append(.init(text: "✔ completed", tone: .success))
        case .failed(let code, let message):
            parts.append(.init(text: "✘ failed: \(code)", tone: .failure))
            parts.append(.init(text: " " + message, tone: .dim))
        case .queued, .waiting:
            parts.append(.init(text: meter(transfer), tone: .dim))
            parts.append(.init(text: transfer.phase == .queued ? " queued" : " waiting", tone: .warning))
        case .transferring, .saving:
            parts.append(.init(text: meter(transfer), tone: transfer.phase == .saving ? .accent : .plain))
            let percent = Units.percent(transfer.done, of: transfer.total) ?? "…"
            var figures = " \(percent.leftPad(4)) \(amounts(transfer))"
            if let rate = transfer.meter.bytesPerSecond { figures += " " + Units.rate(rate) }
            if let eta = transfer.meter.secondsRemaining(toward: transfer.total) { figures += " ETA " + Units.duration(eta) }
            if transfer.phase == .saving { figures += " saving" }
            parts.append(.init(text: figures))
        }
        return StyledLine(parts)
    }

    /// `[=========>          ]`: empty while the total is unknown, full once succeeded.
    private static func meter(_ transfer: FollowedTransfer) -> String {
        let width = 20
        let fraction = transfer.phase == .succeeded ? 1 : transfer.total > 0 ? Double(transfer.done) / Double(transfer.total) : 0
        let filled = min(width, Int(fraction * Double(width)))
        let head = filled < width && filled > 0 ? ">" : ""
        return "[" + String(repeating: "=", count: filled - head.count) + head + String(repeating: " ", count: width - filled) + "]"
    }

    /// `12.0 MiB/40.0 MiB`, or the bytes so far while the total is unknown.
    private static func amounts(_ transfer: FollowedTransfer) -> String {
        transfer.total >= 0 ? "\(Units.bytes(transfer.done))/\(Units.bytes(transfer.total))" : Units.bytes(transfer.done)
    }
}

extension String {
    /// The string right-aligned in `width` columns.
    func leftPad(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
