import Crypto
import Foundation
import TransferdDomain

extension CredentialVault {
    /// The vault of the stores tests open by themselves (a service under test has its data directory's key).
    package static let forTests = CredentialVault(key: SymmetricKey(data: Data(repeating: 7, count: 32)))
}
