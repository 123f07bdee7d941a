import Synchronization

/// The text of a statement that writes rows of one shape, built on first use: a table's rows always carry the same
/// columns, and building it on every call costs the writer's time.
final class StatementByColumns: Sendable {
    private let build: @Sendable ([String]) -> String
    private let built = Mutex<(columns: [String], text: String)?>(nil)

    init(_ build: @escaping @Sendable ([String]) -> String) {
        self.build = build
    }

    /// The statement for rows of `columns`.
    func text(columns: [String]) -> String {
        if let built = built.withLock({ $0 }), built.columns == columns { return built.text }
        let text = build(columns)
        built.withLock { $0 = (columns, text) }
        return text
    }
}
