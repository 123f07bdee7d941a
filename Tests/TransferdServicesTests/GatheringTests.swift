import Synchronization
import Testing
import TransferdServices
import TransferdTestSupport

/// Items submitted while a run is under way go together into the next run; a lone item runs at once.
@Suite struct GatheringTests {
    @Test func aLoneItemRunsAtOnce() async {
        let gathering = Gathering<Int, String>()
        let runs = Runs()
        #expect(await gathering.submit(7, runs.record) == "7")
        #expect(runs.batches == [[7]])
    }

    @Test func itemsThatArriveDuringARunGoTogetherIntoTheNext() async throws {
        // setup: the first run waits at a gate while five more items arrive
        let gathering = Gathering<Int, String>()
        let (runs, gate) = (Runs(), Gate())
        let run = runs.recording(after: gate)

        // act
        let outcomes = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            group.addTask { (0, await gathering.submit(0, run)) }
            try await waitUntil { await gate.isWaiting }
            for item in 1...5 {
                group.addTask { (item, await gathering.submit(item, run)) }
                try await waitUntil { gathering.waiting == item }
            }
            await gate.open()
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }

        // verify: two runs, each item answered with its own outcome
        #expect(runs.batches == [[0], [1, 2, 3, 4, 5]])
        #expect(outcomes == Dictionary(uniqueKeysWithValues: (0...5).map { ($0, "\($0)") }))
        #expect(gathering.waiting == 0)
    }

    @Test func aCancelledLeaderStillRunsItsFollowers() async throws {
        // setup: the leader's run waits at a gate, with a follower in line
        let gathering = Gathering<Int, String>()
        let (runs, gate) = (Runs(), Gate())
        let run = runs.recording(after: gate)
        let leader = Task { await gathering.submit(0, run) }
        try await waitUntil { await gate.isWaiting }
        let follower = Task { await gathering.submit(1, run) }
        try await waitUntil { gathering.waiting == 1 }

        // act
        leader.cancel()
        await gate.open()

        // verify
        #expect(await leader.value == "0")
        #expect(await follower.value == "1")
        #expect(runs.batches == [[0], [1]])
    }

    /// The batches run, in order.
    fileprivate final class Runs: Sendable {
        private let recorded = Mutex<[[Int]]>([])

        var batches: [[Int]] { recorded.withLock { $0 } }

        @Sendable func record(_ items: [Int]) async -> [String] {
            recorded.withLock { $0.append(items) }
            return items.map { "\($0)" }
        }

        /// Records each batch, the first (item 0 alone) once it has passed `gate`.
        func recording(after gate: Gate) -> @Sendable ([Int]) async -> [String] {
            { items in
                if items == [0] { await gate.passed() }
                return await self.record(items)
            }
        }
    }

    /// Holds whoever passes until it opens.
    fileprivate actor Gate {
        private var waiting: [CheckedContinuation<Void, Never>] = []
        private var isOpen = false

        var isWaiting: Bool { !waiting.isEmpty }

        func passed() async {
            guard !isOpen else { return }
            await withCheckedContinuation { waiting.append($0) }
        }

        func open() {
            isOpen = true
            for continuation in waiting { continuation.resume() }
            waiting = []
        }
    }
}
