import Foundation
import Testing

/// One concept per file: no Swift file of the sources or the tests is over 400 lines (the client that
/// `Scripts/generate-client` generates from `openapi.yaml` aside). A file that grows past it is split by concern.
@Suite struct SourceFileSizeTests {
    static let maximumLines = 400

    @Test func noSwiftFileIsOverFourHundredLines() throws {
        let root = MarkdownDocument.repository
        var oversized: [String] = []
        for folder in ["Sources", "Tests"] {
            let files = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard file.pathExtension == "swift", !file.path.contains("/Generated/"), !file.path.contains("/.build") else { continue }
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count - 1
                if lines > Self.maximumLines { oversized.append("\(file.path.dropFirst(root.path.count + 1)): \(lines)") }
            }
        }
        #expect(oversized.isEmpty, "over \(Self.maximumLines) lines: \(oversized.sorted())")
    }
}
