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

            // act: ten more callers queue one after another, each waiting until the previous is in line; each, once
            // in, stays until the test lets it go
            for number in 0..<10 {
                group.addTask {
                    try await turnstile.run {
                        inside.state.withLock { _ = $0.now.insert(number) }
                        try await waitUntil { inside.state.withLock { $0.free.contains(number) } }
                        inside.state.withLock { _ = $0.now.remove(number) }
                    }
                }
                try await waitUntil { turnstile.waiting == number + 1 }
            }
            release.continuation.finish()

            // verify: the callers are let in as they came, `capacity` at a time. A caller let in holds its turn even
            // before its task runs again (on a loaded machine, callers behind it ran first when a test watched only
            // the order the bodies began in), so the test waits for each group inside before it lets the first go.
            for first in 0..<10 {
                let end = min(first + capacity, 10)
                try await waitUntil { inside.state.withLock { $0.now == Set(first..<end) } }
                #expect(turnstile.waiting == 10 - end, "the callers from \(end) on still wait")
                inside.state.withLock { _ = $0.free.insert(first) }
            }
            try await group.waitForAll()
        }
    }

    /// Who is inside now, and who the test let go.
    private final class Inside: Sendable {
        let state = Mutex((now: Set<Int>(), free: Set<Int>()))
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
