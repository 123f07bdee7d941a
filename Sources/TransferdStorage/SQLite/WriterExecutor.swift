import Dispatch

/// The thread a SQLite store's write transactions run on. A write waits for the disk (its commit syncs the log), and
/// must not hold one of the few threads of Swift's cooperative pool meanwhile: requests and transfers would wait
/// behind it. Its statements reach GRDB's writer connection from here without a thread hop.
final class WriterExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "transferd.sqlite.writer")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
