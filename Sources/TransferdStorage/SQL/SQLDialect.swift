/// The database a connection speaks to, for the few statements that SQLite and PostgreSQL write differently.
package enum SQLDialect: Sendable {
    case sqlite
    case postgres
}
