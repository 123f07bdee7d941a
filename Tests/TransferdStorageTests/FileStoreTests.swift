import Foundation
import Testing
import TransferdDomain
import TransferdStorage
import TransferdTestSupport

/// The file steps of a transfer's end, which run again when the end does not commit (a crash, a conflict on
/// PostgreSQL): each does the same the second time, and never loses the bytes it moves. A partial file has one writer
/// at a time; publications share the syncs of their directory.
@Suite struct FileStoreTests {
    @Test func publishingTwicePublishesTheFileAndKeepsThePartialUntilItIsRemoved() async throws {
        let files = try FileStore(dataDirectory: DataDirectories.temporary())
        try Data("finished".utf8).write(to: URL(fileURLWithPath: files.partialPath(taskID: 7)))

        try await files.publish(taskID: 7)
        try await files.publish(taskID: 7)

        #expect(try String(contentsOfFile: files.contentPath(taskID: 7), encoding: .utf8) == "finished")
        #expect(files.partialSize(taskID: 7) == 8, "an end that does not commit leaves the next attempt its bytes")
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.root).sorted() == ["7", "7.part"])
        files.removePartial(taskID: 7)
        #expect(try String(contentsOfFile: files.contentPath(taskID: 7), encoding: .utf8) == "finished")
    }

    @Test func manyPublicationsAtOnceAllReturnWithTheirFilesInPlace() async throws {
        let files = try FileStore(dataDirectory: DataDirectories.temporary())
        let ids = Array(Int64(1)...64)
        for id in ids { try Data("file \(id)".utf8).write(to: URL(fileURLWithPath: files.partialPath(taskID: id))) }

        // act: the publications share the directory's syncs, led in turn by one of those waiting
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in ids { group.addTask { try await files.publish(taskID: id) } }
            try await group.waitForAll()
        }

        for id in ids { #expect(try String(contentsOfFile: files.contentPath(taskID: id), encoding: .utf8) == "file \(id)") }
    }

    @Test func publishingReplacesWhatAPublicationThatNeverCommittedLeft() async throws {
        let files = try FileStore(dataDirectory: DataDirectories.temporary())
        try Data("stale".utf8).write(to: URL(fileURLWithPath: files.contentPath(taskID: 6)))
        try Data("whole".utf8).write(to: URL(fileURLWithPath: files.partialPath(taskID: 6)))

        try await files.publish(taskID: 6)

        #expect(try String(contentsOfFile: files.contentPath(taskID: 6), encoding: .utf8) == "whole")
    }

    @Test func publishingWithoutAnyFileFailsWithTheReason() async throws {
        let files = try FileStore(dataDirectory: DataDirectories.temporary())

        let error = await #expect(throws: TransferError.self) { try await files.publish(taskID: 8) }

        #expect(error?.code == .cannotWriteToFile)
        #expect(error?.message.contains("errno \(ENOENT)") == true)
    }

    @Test func aPartialFileSharedTwiceKeepsItsSourceUntilItIsRemoved() throws {
        let files = try FileStore(dataDirectory: DataDirectories.temporary())
        try Data(repeating: 1, count: 1000).write(to: URL(fileURLWithPath: files.partialPath(taskID: 1)))

        // a transaction that ran again shares the file with the task it inserted the second time
        #expect(files.sharePartial(from: 1, to: 2))
        #expect(files.sharePartial(from: 1, to: 3))
        files.removePartial(taskID: 1)

        #expect(files.partialSize(taskID: 3) == 1000)
        #expect(files.partialSize(taskID: 1) == 0)
        #expect(!files.sharePartial(from: 1, to: 4), "a removed source is gone")
    }

    @Test func aHeldPartialFileIsRefusedToASecondAttemptUntilReleased() async throws {
        let files = try FileStore(dataDirectory: DataDirectories.temporary())
        try Data(repeating: 1, count: 500).write(to: URL(fileURLWithPath: files.partialPath(taskID: 5)))
        let held = try #require(try await files.lockPartial(taskID: 5))

        #expect(try await files.lockPartial(taskID: 5) == nil, "another attempt, of this process or another, waits")
        #expect(try held.size() == 500)
        held.release()

        // The lock belongs to the file's open description, which a child process spawned meanwhile (the suite spawns
        // many) shares until it closes its copies on its way to exec: the next attempt may wait a moment for it, as
        // the download runner does.
        var next: PartialFileLock?
        try await waitUntil(timeout: .seconds(10)) {
            next = try await files.lockPartial(taskID: 5)
            return next != nil
        }
        #expect(try next?.size() == 500, "the bytes stay")
        next?.release()
    }
}
