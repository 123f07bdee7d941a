import Foundation

// What tests read back from the API: decoding into these checks the response shapes as a client sees them.

struct ProblemView: Decodable, Sendable {
    var type: String
    var title: String
    var status: Int
    var detail: String
    /// A quota's refusal: the quota and its figures.
    var quota: String?
    var limit: Int64?
    var used: Int64?
    var requested: Int64?
}

struct TenantView: Decodable, Sendable {
    struct Figure: Decodable, Sendable, Equatable {
        var limit: Int64?
        var used: Int64
    }

    struct Quotas: Decodable, Sendable {
        var sessions: Figure
        var queuedTasks: Figure
        var storedBytes: Figure
        var transfers: [String: Int64?]
    }

    var name: String
    var quotas: Quotas
}

struct WebhookView: Decodable, Sendable {
    var url: String
    var events: [String]?
    var state: String
    var secretHint: String
    var secret: String?
}

struct SessionView: Decodable, Sendable {
    struct ConfigurationView: Decodable, Sendable {
        var maximumConnectionsPerHost: Int
        var timeoutIntervalForRequest: Double
        var timeoutIntervalForResource: Double
        var httpAdditionalHeaders: [String: String]
        var sessionSendsLaunchEvents: Bool
        var discretionary: Bool
        var webhook: WebhookView?
    }

    var identifier: String
    var tenant: String
    var state: String
    var configuration: ConfigurationView
    var taskCounts: [String: Int]
    var storedBytes: Int
    var lastEventSequence: Int
    var lastAcknowledgedSequence: Int
    var pendingDeliveries: Int
    var webhookState: String?
    var createdAt: Date
}

struct DeliveryView: Decodable, Sendable {
    struct AttemptView: Decodable, Sendable {
        var statusCode: Int?
        var latencyMs: Int
        var error: String?
    }

    var id: Int
    var sequence: Int
    var eventType: String
    var taskIdentifier: Int?
    var messageId: String
    var status: String
    var attemptCount: Int
    var lastError: String?
    var attempts: [AttemptView]
}

struct ErrorView: Decodable, Sendable, Equatable {
    var code: String
    var message: String
    var statusCode: Int?
    var resumeData: String?
}

struct FileView: Decodable, Sendable, Equatable {
    var size: Int
    var sha256: String
    var contentType: String?
}

struct TaskView: Decodable, Sendable {
    struct RequestView: Decodable, Sendable {
        var url: String
        var method: String
        var headers: [String]
    }

    struct ResponseView: Decodable, Sendable {
        var statusCode: Int
        var headers: [String: String]
        var mimeType: String?
    }

    struct ProgressView: Decodable, Sendable {
        var fractionCompleted: Double
    }

    var taskIdentifier: Int
    var kind: String
    var state: String
    var taskDescription: String?
    var priority: Double
    var originalRequest: RequestView
    var currentRequest: RequestView?
    var response: ResponseView?
    var countOfBytesReceived: Int
    var countOfBytesExpectedToReceive: Int
    var countOfBytesSent: Int
    var countOfBytesExpectedToSend: Int
    var progress: ProgressView
    var error: ErrorView?
    var file: FileView?
    var checksum: ChecksumView?
    var waitingReason: String?
    var createdAt: Date
    var startedAt: Date?
    var attempts: [AttemptView]
    var resumable: Bool
    var notResumableReason: String?
    var connections: Int
    var maxBytesPerSecond: Int?
    var redirectPolicy: String?
    var responseBody: ReplyView?

    struct ReplyView: Decodable, Sendable {
        var size: Int
        var truncated: Bool
        var contentType: String?
    }

    struct AttemptView: Decodable, Sendable {
        var outcome: String
        var statusCode: Int?
        var bytes: Int
        var endedAt: Date
    }
}

struct StagedFileView: Decodable, Sendable {
    var id: String
    var state: String
    var size: Int
    var uploadOffset: Int
    var sha256: String?
    var contentType: String?
    var metadata: [String: String]
    var expiresAt: Date
}

struct ChecksumView: Decodable, Sendable {
    var algorithm: String
    var value: String
}

struct EventView: Decodable, Sendable {
    struct DataView: Decodable, Sendable {
        var bytesWritten: Int?
        var totalBytesWritten: Int?
        var totalBytesExpectedToWrite: Int?
        var error: ErrorView?
        var file: FileView?
        var state: String?
        var backgroundTask: String?
        var bytesSent: Int?
        var totalBytesSent: Int?
        var totalBytesExpectedToSend: Int?
        var fileOffset: Int?
        var restartReason: String?
        var statusCode: Int?
        var fromURL: String?
        var toURL: String?
        var followed: Bool?
        var protectionSpace: ProtectionSpaceView?
        var previousFailureCount: Int?
    }

    struct ProtectionSpaceView: Decodable, Sendable, Equatable {
        var authenticationMethod: String
        var realm: String?
        var host: String
        var port: Int
        var isProxy: Bool
    }

    var sequence: Int
    var type: String
    var taskIdentifier: Int?
    var data: DataView
    var createdAt: Date
}

struct EventBatchView: Decodable, Sendable {
    var items: [EventView]
    var nextAfter: Int
}

struct PageView<Item: Decodable & Sendable>: Decodable, Sendable {
    var items: [Item]
    var nextCursor: String?
}
