import Foundation
import GRDB
import TransferdDomain

/// The installation's secrets on SQLite (`service_keys`, filled by migrations).
struct SQLiteServiceKeyRepository: ServiceKeyRepository {
    let db: Database

    func key(named name: String) throws -> Data? {
        try SQLRequest<Data>(literal: "SELECT value FROM service_keys WHERE name = \(name)").fetchOne(db)
    }
}
