import Synchronization
import TransferdDomain

/// Session configurations decoded once per distinct JSON text: sessions share few configurations, and their rows
/// are read on every request. Bounded: forgotten all at once when it grows past `capacity` texts.
enum SessionConfigurationTexts {
    private static let capacity = 1024
    private static let decoded = Mutex<[String: SessionConfiguration]>([:])

    static func configuration(_ text: String) throws -> SessionConfiguration {
        if let known = decoded.withLock({ $0[text] }) { return known }
        let configuration = try RowCoding.decode(SessionConfiguration.self, json: text)
        decoded.withLock { texts in
            if texts.count >= capacity { texts.removeAll(keepingCapacity: true) }
            texts[text] = configuration
        }
        return configuration
    }
}
