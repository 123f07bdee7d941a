/// Rows in aligned columns, fitted to the terminal's width by shortening the flexible column (a URL).
struct Table {
    /// A column: its title, its alignment, and whether it gives way when the table is too wide.
    struct Column {
        var title: String
        var alignRight = false
        var flexible = false
    }

    /// A cell: its text and color.
    struct Cell: ExpressibleByStringLiteral {
        var text: String
        var tone: StyledLine.Tone = .plain

        init(_ text: String, _ tone: StyledLine.Tone = .plain) {
            self.text = text
            self.tone = tone
        }

        init(stringLiteral text: String) {
            self.init(text)
        }
    }

    let columns: [Column]
    var rows: [[Cell]] = []

    init(_ columns: [Column]) {
        self.columns = columns
    }

    /// The table's lines, header first, at most `width` columns wide (no limit when nil).
    func lines(width: Int?) -> [StyledLine] {
        var widths = columns.indices.map { column in
            rows.reduce(columns[column].title.count) { max($0, $1[column].text.count) }
        }
        let gap = 2
        let total = widths.reduce(0, +) + gap * (columns.count - 1)
        if let width, total > width, let flexible = columns.firstIndex(where: \.flexible) {
            widths[flexible] = max(8, widths[flexible] - (total - width))
        }
        let header = columns.map { Cell($0.title, .bold) }
        return ([header] + rows).map { cells in
            StyledLine(
                cells.indices.flatMap { column -> [StyledLine.Part] in
                    let width = widths[column]
                    var text = cells[column].text
                    if text.count > width { text = StyledLine.shortened(text, by: text.count - width) }
                    let padding = String(repeating: " ", count: width - text.count)
                    let isLast = column == cells.count - 1
                    let padded = columns[column].alignRight ? padding + text : text + (isLast ? "" : padding)
                    return [.init(text: padded, tone: cells[column].tone), .init(text: isLast ? "" : String(repeating: " ", count: gap))]
                }
            )
        }
    }

    /// Prints the table.
    func print() {
        for line in lines(width: Console.width) { Console.line(line.rendered(width: Int.max)) }
    }
}
