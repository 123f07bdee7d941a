import Rainbow

/// A line of text in parts, each with a color (Rainbow's, which leaves text plain when `NO_COLOR` is set or output
/// is not a terminal), fitted to a width by shortening its flexible part (a URL, a file name) before cutting it.
struct StyledLine: Sendable, ExpressibleByStringLiteral {
    /// How a part looks.
    enum Tone: Sendable {
        case plain, dim, bold, success, failure, warning, accent
    }

    /// One part of the line.
    struct Part: Sendable {
        var text: String
        var tone: Tone = .plain
        /// Shortened first (in its middle) when the line is too wide.
        var flexible = false
    }

    var parts: [Part]

    init(_ parts: [Part]) {
        self.parts = parts
    }

    init(stringLiteral text: String) {
        parts = [Part(text: text)]
    }

    /// The text without colors.
    var plain: String { parts.map(\.text).joined() }

    /// The line at most `width` columns wide, colored.
    func rendered(width: Int) -> String {
        var parts = parts
        let excess = plain.count - width
        if excess > 0, let flexible = parts.firstIndex(where: \.flexible) {
            parts[flexible].text = Self.shortened(parts[flexible].text, by: excess)
        }
        var remaining = width
        var output = ""
        for part in parts where remaining > 0 {
            let text = String(part.text.prefix(remaining))
            remaining -= text.count
            output += Self.colored(text, part.tone)
        }
        return output
    }

    /// `text` made `excess` characters shorter (at least one kept), by an ellipsis in its middle.
    static func shortened(_ text: String, by excess: Int) -> String {
        let keep = max(1, text.count - excess - 1)
        guard keep < text.count else { return text }
        let head = keep / 2
        return String(text.prefix(head)) + "…" + String(text.suffix(keep - head))
    }

    private static func colored(_ text: String, _ tone: Tone) -> String {
        switch tone {
        case .plain: text
        case .dim: text.dim
        case .bold: text.bold
        case .success: text.green
        case .failure: text.red
        case .warning: text.yellow
        case .accent: text.cyan
        }
    }
}
