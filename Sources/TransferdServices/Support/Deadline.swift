/// Runs `body` for at most `limit`: past it, `body` is cancelled and `DeadlineExceeded` is thrown.
func withDeadline<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask(operation: body)
        group.addTask {
            try await Task.sleep(for: limit)
            throw DeadlineExceeded(limit: limit)
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw DeadlineExceeded(limit: limit) }
        return first
    }
}

/// What `withDeadline` throws when its body outlived the limit.
struct DeadlineExceeded: Error {
    let limit: Duration
}
