import Crypto
import Foundation

/// What NSURLSession calls resume data: an opaque token from which a new task continues a download that was
/// cancelled or failed, instead of starting again from byte 0.
///
/// The token is `v1.<payload>.<mac>`: the base64 JSON of this value and its HMAC-SHA256 under the installation's
/// own key, so a token altered, made up, or issued by another installation is refused before anything is read.
package struct ResumeData: Codable, Sendable, Equatable {
    /// The session the token was issued in; it is accepted there only.
    package var sessionID: Int64
    /// The task whose partial file holds the bytes.
    package var taskID: Int64
    package var url: String
    /// Bytes of the partial file that the new task keeps.
    package var bytes: Int64
    /// The total size, -1 when unknown.
    package var expectedBytes: Int64
    package var validator: ResumeValidator

    private static let prefix = "v1."

    /// Issues and checks tokens with the installation's key (see `service_keys`).
    package struct Signer: Sendable {
        let key: SymmetricKey

        /// A signer with the installation's 32-byte key.
        package init(key: Data) {
            self.key = SymmetricKey(data: key)
        }

        package func token(for resumeData: ResumeData) throws -> String {
            let payload = try JSONEncoder().encode(resumeData)
            let mac = Data(HMAC<SHA256>.authenticationCode(for: payload, using: key))
            return ResumeData.prefix + payload.base64EncodedString() + "." + mac.base64EncodedString()
        }

        /// The token's contents, or a 400 problem that says what is wrong with it.
        package func decode(_ token: String) throws(DomainError) -> ResumeData {
            guard token.hasPrefix(ResumeData.prefix) else {
                throw .invalidField("resumeData", requirement: "is not resume data of a version this service understands")
            }
            let parts = token.dropFirst(ResumeData.prefix.count).split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, let payload = Data(base64Encoded: String(parts[0])), let mac = Data(base64Encoded: String(parts[1]))
            else {
                throw .invalidField("resumeData", requirement: "is malformed")
            }
            guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: payload, using: key) else {
                throw .invalidField("resumeData", requirement: "was not issued by this service or has been altered")
            }
            guard let resumeData = try? JSONDecoder().decode(ResumeData.self, from: payload) else {
                throw .invalidField("resumeData", requirement: "is malformed")
            }
            return resumeData
        }
    }

    package init(
        sessionID: Int64,
        taskID: Int64,
        url: String,
        bytes: Int64,
        expectedBytes: Int64,
        validator: ResumeValidator
    ) {
        self.sessionID = sessionID
        self.taskID = taskID
        self.url = url
        self.bytes = bytes
        self.expectedBytes = expectedBytes
        self.validator = validator
    }
}
