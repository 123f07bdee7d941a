import Foundation

/// Secrets of this installation, generated once by a migration.
package protocol ServiceKeyRepository {
    /// The key with this name (`resume_data` signs resume data tokens).
    func key(named name: String) async throws -> Data?
}
