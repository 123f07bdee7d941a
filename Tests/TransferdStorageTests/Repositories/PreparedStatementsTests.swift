import Foundation
import PostgresNIO
import Testing
import TransferdDomain
import TransferdTestSupport

@testable import TransferdStorage

/// Statements sent again are prepared by their text and their arguments' types: a name once a text has been sent
/// `threshold` times, the same name after, a name of its own for other types, none past `capacity`. And the values a
/// statement writes read back the same whether it was sent unnamed or prepared, on the suite's database.
@Suite struct PreparedStatementsTests {
    @Test func aTextIsNamedOnceSentEnoughTimesAndKeepsItsName() {
        let statements = PreparedStatements(threshold: 3, capacity: 2)
        let (text, other, third) = ("SELECT a FROM t WHERE id = $1", "SELECT b FROM t WHERE id = $1", "SELECT c FROM t")

        // act and verify: the first two sends are unnamed, the third names it, and the name stays
        #expect(statements.prepared(text, types: [.int8]) == nil)
        #expect(statements.prepared(text, types: [.int8]) == nil)
        let named = statements.prepared(text, types: [.int8])
        #expect(named?.sql == text && named?.types == [.int8])
        #expect(statements.prepared(text, types: [.int8])?.name == named?.name)

        // verify: other argument types are another statement; past the capacity, texts stay unnamed
        for _ in 0..<3 { _ = statements.prepared(text, types: [.null]) }
        let nullNamed = statements.prepared(text, types: [.null])
        #expect(nullNamed != nil && nullNamed?.name != named?.name)
        for _ in 0..<5 {
            #expect(statements.prepared(other, types: []) == nil)
            #expect(statements.prepared(third, types: []) == nil)
        }
        #expect(statements.prepared(text, types: [.int8])?.name == named?.name, "a named text keeps its name past the capacity")
    }

    @Test func aStatementWritesTheSameValuesUnnamedAndPrepared() async throws {
        try await SuiteStore.fresh { store in
            // setup
            let now = Date()
            let task = try await store.write { repositories in
                let session = try await StoredRows.session("prepared", at: now, repositories)
                return try await repositories.tasks.insert(StoredRows.download(1, in: session, at: now))
            }

            // act: the same update sent again and again (unnamed at first, then prepared), with the description
            // alternately NULL and hostile text
            let descriptions: [String?] = (0..<8).map { $0.isMultiple(of: 2) ? nil : TaskBatchWriteTests.hostile[$0 % 6] + "\($0)" }
            for description in descriptions {
                var changed = task
                changed.taskDescription = description
                try await store.write { [changed] in try await $0.tasks.update(changed) }

                // verify
                let read = try await store.read { try await $0.tasks.find(id: task.rowID) }
                #expect(read?.taskDescription == description)
            }
        }
    }
}
