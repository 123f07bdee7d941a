import Foundation
import Testing
import TransferdDomain

/// The order a claim takes a queue in, as a table: tasks are written "id:priority", boosted ones (of an active
/// background task) of every queue, the queue's page in its own order, and the heads a claim of `depth` gets.
@Suite struct QueueRankingTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        /// "id:priority[@session/origin]", the queue's own being 1/a.
        var boosted: String
        var page: String
        var depth: Int
        var heads: String
        var pageLimit: Int
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "no boosted task: the page's order", boosted: "", page: "1:0.5 2:0.5 3:0.5", depth: 2, heads: "1 2", pageLimit: 2),
        Row(name: "a boosted task goes first", boosted: "3:0.5", page: "1:0.5 2:0.5", depth: 2, heads: "3 1", pageLimit: 3),
        Row(name: "boosted by priority, then the oldest", boosted: "7:0.2 5:0.9 4:0.2", page: "", depth: 3, heads: "5 4 7", pageLimit: 6),
        Row(
            name: "a boosted task in the page is not taken twice",
            boosted: "2:0.5",
            page: "1:0.5 2:0.5 3:0.5",
            depth: 3,
            heads: "2 1 3",
            pageLimit: 4
        ),
        Row(
            name: "another queue's boosted tasks do not count",
            boosted: "8:1@2/a 9:1@1/b",
            page: "1:0.5",
            depth: 2,
            heads: "1",
            pageLimit: 2
        ),
        Row(name: "the boosted alone fill the depth", boosted: "6:0.5 7:0.5", page: "1:0.5", depth: 1, heads: "6", pageLimit: 3),
    ]

    @Test(arguments: rows)
    func boostedTasksFirstThenTheQueuesOwnOrder(_ row: Row) {
        let ranking = QueueRanking(HostQueue(sessionID: 1, origin: "a"), boosted: Self.tasks(row.boosted))
        #expect(ranking.heads(page: Self.tasks(row.page), depth: row.depth).map { String($0.rowID) }.joined(separator: " ") == row.heads)
        #expect(ranking.pageLimit(depth: row.depth) == row.pageLimit)
    }

    /// Tasks written "id:priority[@session/origin]".
    static func tasks(_ text: String) -> [TransferTask] {
        text.split(separator: " ").map { word in
            let (task, queue) = word.contains("@") ? (word.split(separator: "@")[0], word.split(separator: "@")[1]) : (word, "1/a")
            let (id, priority) = (Int64(task.split(separator: ":")[0])!, Double(task.split(separator: ":")[1])!)
            let (session, origin) = (Int64(queue.split(separator: "/")[0])!, String(queue.split(separator: "/")[1]))
            var transferTask = TransferTask(
                sessionId: session,
                taskIdentifier: id,
                transfer: .download(DownloadTransfer()),
                state: .running,
                priority: priority,
                originalRequest: TransferRequest(url: "http://\(origin)/", method: "GET", headers: [:]),
                origin: origin,
                createdAt: Date(timeIntervalSince1970: 0)
            )
            transferTask.id = id
            return transferTask
        }
    }
}
