import Foundation
import TransferdDomain

/// What a task's state, waiting and failure mean, in plain words.
enum TaskWords {
    /// Why a queued task does not run yet, and until when.
    static func waiting(_ reason: TransferTask.WaitingReason, until date: Date?) -> String {
        let until = date.map { " (next try \(DisplayFormat.time($0)))" } ?? ""
        return switch reason {
        case .notBefore: "Waits for its earliest begin date" + (date.map { ", \(DisplayFormat.time($0))" } ?? "") + "."
        case .retryBackoff: "Waits to try again after a failed attempt" + until + "."
        case .waitingForConnectivity: "Waits for its server to be reachable again" + until + "."
        case .hostLimit: "Waits for a free connection: the session's transfers to this host are all under way."
        case .insufficientStorage: "Waits for free disk space: the data directory reached its floor" + until + "."
        case .storageQuota: "Waits for its tenant to keep fewer bytes: the quota of stored bytes is reached" + until + "."
        case .authenticationChallenge:
            "Waits for credentials: its server asked for them" + (date.map { " (answer before \(DisplayFormat.time($0)))" } ?? "") + "."
        case .discretionary: "Waits for the discretionary window or off-peak: its session is discretionary, and other transfers are queued."
        }
    }

    /// An attempt's or a task's outcome: `succeeded`, or what went wrong.
    static func outcome(_ code: String, statusCode: Int?) -> String {
        guard code != "succeeded" else { return "succeeded" }
        if code == "authenticationChallenge" { return "the server asked for credentials" + (statusCode.map { " (HTTP \($0))" } ?? "") }
        let words =
            switch TransferError.Code(rawValue: code) {
            case .cancelled: "cancelled"
            case .timedOut: "timed out"
            case .cannotConnectToHost: "could not connect to the server"
            case .cannotFindHost: "could not find the server's host"
            case .networkConnectionLost: "the connection was lost"
            case .badServerResponse: "the server answered with an error"
            case .httpTooManyRedirects: "too many redirects"
            case .unsupportedURL: "the URL is not supported"
            case .cannotWriteToFile: "the file could not be written"
            case .fileDoesNotExist: "the file to send is gone"
            case .destinationNotAllowed: "the destination is not allowed"
            case .fileTooLarge: "the file is larger than allowed"
            case .outOfSpace: "the disk is full"
            case .quotaExceeded: "the tenant's storage quota is reached"
            case .backgroundTaskExpired: "its background task expired"
            case .checksumMismatch: "the checksum did not match"
            case .cannotDecodeContentData: "the content could not be decoded"
            case .userAuthenticationRequired: "credentials were needed"
            case .secureConnectionFailed: "the secure connection failed"
            case .objectStorageUnavailable: "the object storage could not be reached"
            case .objectStorageRefused: "the object storage refused it"
            case .unknown, nil: code
            }
        return words + (statusCode.map { " (HTTP \($0))" } ?? "")
    }
}
