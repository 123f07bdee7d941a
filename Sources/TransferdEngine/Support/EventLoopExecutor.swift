import NIOCore

/// Runs a task's jobs on one NIO event loop, as its executor preference.
///
/// Swift concurrency runs on NIO's event loops (see `TransferdCommand.main`), where a new task stays on the loop that
/// started it: every transfer the scheduler started would share its loop, and the other loops would idle. Each
/// transfer starts on a loop of its own instead, taken in turn from the group.
package final class EventLoopExecutor: TaskExecutor {
    private let loop: any EventLoop

    package init(_ loop: any EventLoop) {
        self.loop = loop
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}
