/// A doorbell for the scheduler: ringing it makes the scheduler look for queued work; rings coalesce.
struct SchedulerWakeup: Sendable {
    let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func ring() {
        continuation.yield()
    }
}
