import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import TransferdClient

/// Why a command could not do what it was asked: said in one line on standard error, with an exit status that a
/// script can tell apart.
///
/// | status | meaning |
/// |---|---|
/// | 1 | a transfer failed, or a local file could not be read or written |
/// | 2 | transferd refused a request (the problem's detail is printed) or answered unexpectedly |
/// | 3 | transferd could not be reached |
/// | 64 | the command line or its environment is incomplete (as argument-parser's usage errors) |
enum CommandFailure: Error, Sendable {
    /// Something the command needs was not given (the API key).
    case configuration(String)
    /// transferd answered with an RFC 9457 problem (or another non-2xx status).
    case problem(status: Int, title: String, detail: String)
    /// The connection to transferd failed.
    case unreachable(url: String, reason: String)
    /// transferd answered in a way this client does not understand.
    case unexpectedAnswer(String)
    /// A local file could not be read or written.
    case file(String)
    /// Transfers failed; each failure was already named.
    case transfersFailed(count: Int)

    /// The problem a non-2xx answer carries, or its status line when its body is not a problem.
    init(problemIn reply: APIConnection.Reply) {
        let problem = try? APIJSON.decoder.decode(Components.Schemas.Problem.self, from: reply.body)
        let title = problem?.title ?? HTTPResponseStatus(statusCode: reply.status).reasonPhrase
        self = .problem(status: reply.status, title: title, detail: problem?.detail ?? reply.text)
    }

    /// What a failed exchange with transferd at `url` means for the person running the command.
    init(reaching url: String, _ error: any Error) {
        if let failure = error as? CommandFailure {
            self = failure
            return
        }
        self = .unreachable(url: url, reason: Self.reason(error))
    }

    /// A connection failure in a few words.
    private static func reason(_ error: any Error) -> String {
        switch error {
        case let error as NIOConnectionError:
            error.connectionErrors.first.map { reason($0.error) } ?? "connection failed"
        case let error as IOError:
            String(cString: strerror(error.errnoCode)).lowercased()
        case let error as HTTPClientError where error == .connectTimeout:
            "no connection within 5 s"
        case let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout:
            "no answer in time"
        case let error as HTTPClientError where error == .remoteConnectionClosed:
            "the connection was closed"
        case is ChannelError:
            "the connection failed (\(error))"
        default:
            "\(error)"
        }
    }

    /// The one line that says what happened.
    var message: String {
        switch self {
        case .problem(let status, let title, let detail):
            "transferd answered \(status) \(title): \(detail)"
        case .unreachable(let url, let reason):
            "cannot reach transferd at \(url): \(reason) (set --url or TRANSFERD_URL)"
        case .unexpectedAnswer(let what):
            "unexpected answer from transferd: \(what)"
        case .file(let what), .configuration(let what):
            what
        case .transfersFailed(let count):
            count == 1 ? "1 transfer failed" : "\(count) transfers failed"
        }
    }

    var exitStatus: Int32 {
        switch self {
        case .transfersFailed, .file: 1
        case .problem, .unexpectedAnswer: 2
        case .unreachable: 3
        case .configuration: 64
        }
    }
}
