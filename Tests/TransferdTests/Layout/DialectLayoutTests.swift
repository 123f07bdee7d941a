import Foundation
import Testing

/// What the two databases write differently lives in `TransferdStorage`'s `PostgreSQL/` and `SQLite/` folders, behind
/// the protocols every connection vends (`OutboxPaths`, `TaskPaths`, `RowBatches`, …): no other file asks which
/// database it runs on, by a dialect or by the type of its connection.
@Suite struct DialectLayoutTests {
    static let dialectFolders = ["Sources/TransferdStorage/PostgreSQL/", "Sources/TransferdStorage/SQLite/"]

    @Test func noFileOutsideTheDialectFoldersChecksItsDatabase() throws {
        let root = MarkdownDocument.repository
        let check = #/\bdialect\b|\b(is|as[?!]?)\s+(PostgresSQLConnection|SQLiteConnection)\b/#
        var checks: [String] = []
        let files = FileManager.default.enumerator(at: root.appendingPathComponent("Sources"), includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            let path = String(file.path.dropFirst(root.path.count + 1))
            guard file.pathExtension == "swift", !Self.dialectFolders.contains(where: path.hasPrefix) else { continue }
            let code = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").enumerated()
            for (number, line) in code where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains(check) {
                checks.append("\(path):\(number + 1)")
            }
        }
        #expect(checks.isEmpty, "dialect checks outside \(Self.dialectFolders): \(checks)")
    }
}
