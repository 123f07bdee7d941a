import Foundation
import Testing

/// Every relative link and `#anchor` in `README.md` and `docs/` resolves: to a file of the repository, and to a
/// heading of the page it names.
@Suite struct DocumentationLinkTests {
    @Test func everyRelativeLinkAndAnchorResolves() throws {
        let documents = try MarkdownDocument.all()
        var checked = 0
        var broken: [String] = []
        for document in documents {
            for target in document.linkTargets where !Self.isExternal(target) {
                checked += 1
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let file = parts[0].isEmpty ? document.url : document.url.deletingLastPathComponent().appendingPathComponent(parts[0])
                guard FileManager.default.fileExists(atPath: file.standardized.path) else {
                    broken.append("\(document.path): \(target) (no such file)")
                    continue
                }
                guard parts.count == 2 else { continue }
                let page =
                    file.standardized.path == document.url.standardized.path
                    ? document
                    : MarkdownDocument(path: target, url: file, text: try String(contentsOf: file, encoding: .utf8))
                if !page.anchors.contains(parts[1]) { broken.append("\(document.path): \(target) (no such heading)") }
            }
        }
        #expect(broken.isEmpty, "broken links:\n\(broken.joined(separator: "\n"))")
        #expect(checked > 50, "only \(checked) relative links were found: is the reader still finding them?")
    }

    /// GitHub's anchors, from headings written as the guides write them.
    @Test(arguments: [
        ("# Deployment and scaling out", "deployment-and-scaling-out"),
        ("## `transferd serve`", "transferd-serve"),
        ("## Shutdown, crashes and durability", "shutdown-crashes-and-durability"),
        ("### The same with curl (the raw API)", "the-same-with-curl-the-raw-api"),
        ("## From NSURLSession to the API", "from-nsurlsession-to-the-api"),
    ])
    func anchorsAreGitHubs(heading: String, anchor: String) {
        #expect(MarkdownDocument(path: "", url: URL(fileURLWithPath: "/"), text: heading).anchors == [anchor])
    }

    @Test func aRepeatedHeadingGetsANumberedAnchor() {
        let page = MarkdownDocument(path: "", url: URL(fileURLWithPath: "/"), text: "## Tests\n\n## Tests\n\n```\n# not a heading\n```")
        #expect(page.anchors == ["tests", "tests-1"])
    }

    private static func isExternal(_ target: String) -> Bool {
        target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("mailto:")
    }
}
