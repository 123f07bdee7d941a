import NIOCore

/// Where request bodies wait: each arrival waits until `count` have arrived (bodies that sent their first half, and
/// the test, when it opens the way itself).
actor BodyGate {
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var remaining: Int

    init(count: Int) { remaining = count }

    /// Counts an arrival, and returns once every one has arrived.
    func arrive() async {
        remaining -= 1
        if remaining <= 0 {
            for continuation in waiting { continuation.resume() }
            waiting.removeAll()
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}

/// A request body in two halves (`AsyncHTTPClient`'s `.stream`), the second sent once its first half has arrived
/// at `gate` and the gate has opened.
struct HeldBody: AsyncSequence, Sendable {
    let halves: [ByteBuffer]
    let gate: BodyGate

    /// `bytes` in two halves.
    init(_ bytes: ByteBuffer, gate: BodyGate) {
        let half = bytes.readableBytes / 2
        halves = [
            bytes.getSlice(at: bytes.readerIndex, length: half)!,
            bytes.getSlice(at: bytes.readerIndex + half, length: bytes.readableBytes - half)!,
        ]
        self.gate = gate
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: HeldBody
        var index = 0

        mutating func next() async -> ByteBuffer? {
            defer { index += 1 }
            if index == 1 { await body.gate.arrive() }
            return index < body.halves.count ? body.halves[index] : nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }
}
