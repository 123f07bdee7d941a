import Synchronization

/// What a command shows live on a terminal: a state that the command's work changes, drawn by a task of its own
/// five times a second whenever it changed. The work never waits for the terminal, and its last change is always
/// drawn (not dropped by a throttle), also when no further change comes.
final class LiveScreen<State: Sendable>: Sendable {
    private let state: Mutex<(value: State, version: Int)>
    private let render: @Sendable (State) -> [StyledLine]

    init(_ initial: State, render: @escaping @Sendable (State) -> [StyledLine]) {
        state = Mutex((initial, 1))
        self.render = render
    }

    /// The state now.
    var value: State { state.withLock { $0.value } }

    /// Changes the state; the next drawing shows it.
    @discardableResult
    func update<T>(_ change: (inout State) -> T) -> T {
        state.withLock { state in
            state.version += 1
            return change(&state.value)
        }
    }

    /// Runs `body` while the state is drawn, then draws it a last time and leaves it on screen.
    func drawing<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.draw() }
            do {
                let result = try await body()
                group.cancelAll()
                return result
            } catch {
                group.cancelAll()
                throw error
            }
        }
    }

    /// Draws whenever the state changed, until cancelled, and then once more.
    private func draw() async {
        let region = LiveRegion()
        var drawn = 0
        while !Task.isCancelled {
            let (value, version) = state.withLock { $0 }
            if version != drawn {
                region.draw(render(value))
                drawn = version
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
        region.draw(render(value))
        region.finish()
    }
}
