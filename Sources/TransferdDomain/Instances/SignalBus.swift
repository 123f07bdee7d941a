import Synchronization

/// Hands signals to whoever subscribed: the store delivers those its own commits announced, and those other
/// instances announced through the database. Subscriptions are made once, while the service is wired.
package final class SignalBus: Sendable {
    private let handlers = Mutex<[@Sendable (Signal) -> Void]>([])

    package init() {}

    package func subscribe(_ handler: @escaping @Sendable (Signal) -> Void) {
        handlers.withLock { $0.append(handler) }
    }

    package func deliver<Signals: Sequence<Signal>>(_ signals: Signals) {
        let handlers = handlers.withLock { $0 }
        for signal in signals {
            for handler in handlers { handler(signal) }
        }
    }
}
