/// A migration file as one statement PostgresNIO can send (it sends one statement a query): PL/pgSQL `EXECUTE`s the
/// file's text, quoted with dollar tags that the text does not contain, so that a file may hold dollar-quoted bodies
/// of its own (`$$`, `$sql$`, …).
enum MigrationScript {
    static func statement(_ sql: String) -> String {
        let (outer, inner) = (tag("migration", avoiding: sql), tag("sql", avoiding: sql))
        return "DO \(outer) BEGIN EXECUTE \(inner)\(sql)\(inner); END \(outer)"
    }

    /// `$base$`, or `$base1$`, `$base2$`, … : the first that `text` does not contain.
    static func tag(_ base: String, avoiding text: String) -> String {
        var tag = "$\(base)$"
        var number = 0
        while text.contains(tag) {
            number += 1
            tag = "$\(base)\(number)$"
        }
        return tag
    }
}
