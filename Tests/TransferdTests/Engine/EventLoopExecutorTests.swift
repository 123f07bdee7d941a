import NIOCore
import NIOPosix
import Testing
import TransferdEngine

/// A transfer started with an event loop as its executor preference runs on that loop, before and after it waits, so
/// that the scheduler can spread transfers over the loops instead of leaving them all on its own.
@Suite struct EventLoopExecutorTests {
    @Test func aTaskPreferringALoopRunsOnItAcrossItsWaits() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loops = [group.next(), group.next()]
        #expect(loops[0] !== loops[1])

        for loop in loops {
            let (before, after) = await Task(executorPreference: EventLoopExecutor(loop)) {
                let before = loop.inEventLoop
                try? await Task.sleep(for: .milliseconds(1))
                return (before, loop.inEventLoop)
            }.value
            #expect(before && after)
        }
        try await group.shutdownGracefully()
    }
}
