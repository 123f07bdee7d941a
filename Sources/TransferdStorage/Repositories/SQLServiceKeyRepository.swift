import Foundation
import GRDB
import TransferdDomain

/// The installation's secrets (`service_keys`, filled by migrations), sealed.
struct SQLServiceKeyRepository: ServiceKeyRepository {
    let db: any SQLConnection
    let vault: CredentialVault

    func key(named name: String) async throws -> Data? {
        try await (db.value("SELECT value FROM service_keys WHERE name = ?", [name]) as Data?).map(vault.open)
    }
}
