import Dispatch
import Foundation

/// Signals (Ctrl-C's SIGINT, SIGTERM) caught so that a command can stop cleanly (leave the terminal tidy)
/// instead of the process ending at once.
final class Interruptions: Sendable {
    /// Kept so that they stay registered; written once, in `init`, and never read.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]
    private let stream: AsyncStream<Void>

    init(signals: [Int32]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        self.stream = stream
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            return source
        }
    }

    /// Returns at the first signal.
    func wait() async {
        for await _ in stream { return }
    }

    /// Runs `body` until it ends, or until the first Ctrl-C or SIGTERM, which cancels it and returns normally.
    static func stop(_ body: @escaping @Sendable () async throws -> Void) async throws {
        let interruptions = Interruptions(signals: [SIGINT, SIGTERM])
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask(operation: body)
            group.addTask { await interruptions.wait() }
            try await group.next()
            group.cancelAll()
        }
    }
}
