import Synchronization
import Testing
import TransferdTestSupport

@testable import TransferdStorage

/// A store's turns: at most `capacity` callers inside at once, the others let in the order they came, and a turn
/// freed whatever the caller's body did.
@Suite struct TurnstileTests {
    @Test(arguments: [1, 3])
    func neverMoreThanItsCapacityInsideAndTheLineGoesInOrder(capacity: Int) async throws {
        // setup: a first group fills the turns and holds them until let go
        let turnstile = Turnstile(capacity: capacity)
        let inside = Inside()
        let (holders, release) = (AsyncStream.makeStream(of: Void.self), AsyncStream.makeStream(of: Void.self))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<capacity {
                group.addTask {
                    try await turnstile.run {
                        holders.continuation.yield()
                        for await _ in release.stream {}
                    }
                }
            }
            var entered = 0
            for await _ in holders.stream {
                entered += 1
                if entered == capacity { break }
            }

            // act: ten more callers queue one after another, each waiting until the previous is in line
            for number in 0..<10 {
                group.addTask {
                    try await turnstile.run {
                        inside.state.withLock { state in
                            state.now += 1
                            state.most = max(state.most, state.now)
                            state.order.append(number)
                        }
                        await Task.yield()
                        inside.state.withLock { $0.now -= 1 }
                    }
                }
                try await waitUntil { turnstile.waiting == number + 1 }
            }
            release.continuation.finish()
            try await group.waitForAll()
        }

        // verify: let in as they came. Callers let in together (up to `capacity` at once) may begin their bodies in any
        // order (one body's first line ran before another's let in just before it, on a loaded machine), but none
        // began before every caller `capacity` places ahead of it had left.
        let state = inside.state.withLock { $0 }
        #expect(state.order.sorted() == Array(0..<10))
        let began = Dictionary(uniqueKeysWithValues: state.order.enumerated().map { ($1, $0) })
        for number in 0..<10 {
            for ahead in stride(from: 0, through: number - capacity, by: 1) {
                #expect(began[ahead, default: .max] < began[number, default: .min], "\(number) began before \(ahead)")
            }
        }
        #expect(state.most <= capacity)
    }

    /// Who is inside now, the most ever inside at once, and the order they came in.
    private final class Inside: Sendable {
        let state = Mutex((now: 0, most: 0, order: [Int]()))
    }

    @Test func aBodyThatThrowsFreesItsTurn() async throws {
        let turnstile = Turnstile(capacity: 1)
        struct Refused: Error {}

        // act
        await #expect(throws: Refused.self) { try await turnstile.run { throw Refused() } }

        // verify: the turn is free again
        #expect(try await turnstile.run { 42 } == 42)
    }
}
