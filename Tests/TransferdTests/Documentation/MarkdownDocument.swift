import Foundation

/// A Markdown page of the repository's documentation, read as far as the documentation tests need: its headings (as
/// GitHub makes anchors of them), its links, its tables and its fenced code blocks.
struct MarkdownDocument {
    /// The repository's root, found from this file's place in it.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `README.md` and every page under `docs/`.
    static func all() throws -> [MarkdownDocument] {
        let docs = repository.appendingPathComponent("docs")
        let pages = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.sorted()
        return try [named("README.md")] + pages.map { try named("docs/\($0)") }
    }

    /// The page at `path`, relative to the repository's root.
    static func named(_ path: String) throws -> MarkdownDocument {
        let url = repository.appendingPathComponent(path)
        return MarkdownDocument(path: path, url: url, text: try String(contentsOf: url, encoding: .utf8))
    }

    /// A fenced code block: its info string (`sh`), its lines, and the heading it stands under.
    struct CodeBlock {
        var language: String
        var lines: [String]
        var heading: String
    }

    let path: String
    let url: URL
    let text: String

    /// The page's lines outside fenced code blocks.
    var prose: [String] {
        var result: [String] = []
        var fenced = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") {
                fenced.toggle()
                continue
            }
            if !fenced { result.append(line) }
        }
        return result
    }

    /// The anchors GitHub gives the page's headings: `#` lines outside code blocks, in lower case, with everything
    /// but letters, digits, spaces, `-` and `_` dropped and spaces made `-`; a repeated one gets `-1`, `-2`, ….
    var anchors: Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        for line in prose where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            let slug = String(
                title.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || " -_".unicodeScalars.contains($0) }
                    .map(Character.init)
            ).replacingOccurrences(of: " ", with: "-")
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// The targets of the page's links and images outside code (`[text](target)`), as written.
    var linkTargets: [String] {
        let link = /!?\[[^\]]*\]\(([^)\s]+)\)/
        return prose.flatMap { line in
            Self.withoutInlineCode(line).matches(of: link).map { String($0.output.1) }
        }
    }

    /// The prose lines of the section headed `heading`, its subsections' included: up to the next heading of its level
    /// or above.
    func section(_ heading: String) -> [String] {
        var lines: [String] = []
        var level: Int?
        for line in prose {
            if line.hasPrefix("#") {
                let depth = line.prefix { $0 == "#" }.count
                if let open = level, depth <= open { break }
                if level == nil, line.dropFirst(depth).trimmingCharacters(in: .whitespaces) == heading {
                    level = depth
                    continue
                }
            }
            if level != nil { lines.append(line) }
        }
        return lines
    }

    /// The rows of every table in the section headed `heading`, each as its cells, header and separator rows left out.
    func tableRows(under heading: String) -> [[String]] {
        var rows: [[String]] = []
        var header = true
        for line in section(heading) {
            guard line.hasPrefix("|") else {
                header = true
                continue
            }
            let cells = Self.cells(of: line)
            defer { header = false }
            guard !header, !cells.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }) else { continue }
            rows.append(cells)
        }
        return rows
    }

    /// The fenced code blocks under headings that `heading` accepts.
    func codeBlocks(under heading: (String) -> Bool) -> [CodeBlock] {
        var blocks: [CodeBlock] = []
        var current: CodeBlock?
        var title = ""
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") {
                if let block = current {
                    if heading(block.heading) { blocks.append(block) }
                    current = nil
                } else {
                    current = CodeBlock(language: String(line.dropFirst(3)), lines: [], heading: title)
                }
            } else if current != nil {
                current?.lines.append(line)
            } else if line.hasPrefix("#") {
                title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            }
        }
        return blocks
    }

    /// A table row's cells, trimmed, split at `|` that is not escaped (`\|`).
    static func cells(of row: String) -> [String] {
        var cells: [String] = []
        var cell = ""
        var previous: Character?
        for character in row.dropFirst() {
            if character == "|" && previous != "\\" {
                cells.append(cell.trimmingCharacters(in: .whitespaces))
                cell = ""
            } else {
                cell.append(character)
            }
            previous = character
        }
        return cells
    }

    /// `line` with its inline code spans (`` `…` ``) emptied, so that code that looks like a link is not read as one.
    static func withoutInlineCode(_ line: String) -> String {
        line.replacing(/`[^`]*`/, with: "``")
    }
}
