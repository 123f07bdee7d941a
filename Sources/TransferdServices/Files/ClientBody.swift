import NIOCore

/// A request's body whose failures say they are the client's (a connection broken, a body too slow), so that they
/// are told apart from the store's while both stream through one call.
struct ClientBody<Base: AsyncSequence>: AsyncSequence where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer

    let base: Base

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator

        mutating func next() async throws -> ByteBuffer? {
            do {
                return try await base.next()
            } catch {
                throw ClientBodyError(underlying: error)
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator())
    }
}

/// A `ClientBody` failed: `underlying` is what it threw.
struct ClientBodyError: Error {
    let underlying: any Error
}
