import AsyncHTTPClient
import Foundation
import NIOHTTP1
import TransferdDomain

extension TransferJob {
    /// The failure of a task whose challenge was not answered within its session's `challengeTimeout`.
    static let unansweredChallenge = TransferError(
        code: .userAuthenticationRequired,
        message: "The server asked for credentials and no answer came within the session's challengeTimeout."
    )

    /// The proxy the job's requests go through: the session's, with the credential the task was given for the
    /// proxy's protection space (a 407 answered) in place of its own.
    func effectiveProxy(with vault: CredentialVault) throws -> ProxySetting? {
        guard var proxy, let credential = proxyCredential else { return self.proxy }
        if case .basic(let user, let password) = try vault.open(credential.sealed) { (proxy.username, proxy.password) = (user, password) }
        return proxy
    }

    /// The credential given for the origin's protection space that covers `url`.
    private func originCredential(for url: String) -> SealedCredential? {
        credentials.first { !$0.protectionSpace.isProxy && $0.protectionSpace.covers(url) }
    }

    /// The credential given for the session's proxy.
    private var proxyCredential: SealedCredential? {
        guard let proxy else { return nil }
        return credentials.first { kept in
            kept.protectionSpace.isProxy && kept.protectionSpace.host == proxy.host.lowercased() && kept.protectionSpace.port == proxy.port
        }
    }

    /// didReceiveChallenge for the proxy: the outcome of a proxy's 407 (AsyncHTTPClient reports it without its
    /// headers, so the space names the proxy's host and port, and Basic); nil for any other error.
    func proxyChallenge(for error: any Error) -> TaskStateMachine.TransferOutcome? {
        guard let proxy, let error = error as? HTTPClientError, error == .proxyAuthenticationRequired else { return nil }
        let space = ProtectionSpace(
            authenticationMethod: "basic",
            realm: nil,
            host: proxy.host.lowercased(),
            port: proxy.port,
            isProxy: true
        )
        let tried = proxy.username != nil || proxyCredential != nil
        return .challenged(space, previousFailureCount: tried ? 1 : 0)
    }

    /// The credential a request to `url` carries: the one given for its protection space, unless the task sets its
    /// own `Authorization`.
    private func credentialSent(to url: String) -> SealedCredential? {
        headers(for: url).contains { $0.name.lowercased() == "authorization" } ? nil : originCredential(for: url)
    }

    /// Adds the credential given for `url`'s protection space to a request for it, unless the task sets its own
    /// `Authorization`.
    func authorize(_ request: inout HTTPClientRequest, for url: String, with vault: CredentialVault) throws {
        guard let credential = credentialSent(to: url) else { return }
        request.headers.replaceOrAdd(name: "Authorization", value: try vault.open(credential.sealed).authorization)
    }

    /// didReceiveChallenge: the outcome of a 401 from `url` that names how to authenticate; nil for any other
    /// response. A credential the request carried failed: the challenge counts it.
    func challenge(in response: HTTPClientResponse, from url: String) -> TaskStateMachine.TransferOutcome? {
        guard response.status == .unauthorized, let header = response.headers.first(name: "www-authenticate"),
            let space = ProtectionSpace(challenge: header, url: url)
        else { return nil }
        return .challenged(space, previousFailureCount: credentialSent(to: url) == nil ? 0 : 1)
    }
}
