/// A stored enumeration's value written into a statement's text instead of bound to a parameter. SQLite decides
/// whether a partial index (`WHERE status = 'pending'`) serves a statement from its text; for a bound value it
/// looks at the value and prepares the statement again whenever another is bound (`sqlite3Reprepare`), which undoes
/// the statement cache. The raw values are the enumerations' own names, never a client's text.
extension RawRepresentable where RawValue == String {
    var sqlConstant: String { "'\(rawValue)'" }
}
