import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import TransferdDomain
import TransferdStorage

extension TransferError {
    /// The NSURLError-style reason for a failure of the HTTP client or the network.
    package init(transportError error: any Error) {
        switch error {
        case _ where StorageExhaustion(error) == .files:
            self.init(code: .outOfSpace, message: "The data directory's disk is full; the transfer waits for space.")
        case let error as HTTPClientError where error == .connectTimeout:
            self.init(code: .cannotConnectToHost, message: "Could not connect to the host in time.")
        case let error as HTTPClientError where error == .remoteConnectionClosed:
            self.init(code: .networkConnectionLost, message: "The server closed the connection before the transfer finished.")
        case let error as HTTPParserError where error == .invalidEOFState:
            self.init(code: .networkConnectionLost, message: "The server closed the connection before the transfer finished.")
        case let error as HTTPClientError where error == .readTimeout || error == .deadlineExceeded:
            self.init(code: .timedOut, message: "The transfer timed out.")
        case let error as NIOConnectionError where error.connectionErrors.isEmpty && (error.dnsAError != nil || error.dnsAAAAError != nil):
            self.init(code: .cannotFindHost, message: "The host name could not be resolved.")
        case is NIOConnectionError:
            self.init(code: .cannotConnectToHost, message: "Could not connect to the host.")
        case let error as IOError where error.errnoCode == ECONNREFUSED:
            self.init(code: .cannotConnectToHost, message: "The host refused the connection.")
        case let error as IOError where error.errnoCode == ECONNRESET || error.errnoCode == EPIPE:
            self.init(code: .networkConnectionLost, message: "The connection was reset.")
        case let error as HTTPClientError where error == .proxyAuthenticationRequired:
            self.init(code: .userAuthenticationRequired, message: "The proxy asked for credentials it was not given (HTTP 407).")
        case let error as HTTPClientError where error == .invalidProxyResponse:
            self.init(code: .cannotConnectToHost, message: "The proxy did not open a tunnel to the host.")
        case let error as NIOSSLError:
            self.init(code: .secureConnectionFailed, message: "The TLS handshake with the server failed (\(error)).")
        case let error as BoringSSLError:
            self.init(code: .secureConnectionFailed, message: "The TLS handshake with the server failed (\(error)).")
        case let error as TransferError:
            self = error
        default:
            self.init(code: .unknown, message: "The transfer failed (\(type(of: error))).")
        }
    }
}
