/// How a session's transfers behave, after NSURLSessionConfiguration. Missing fields take their defaults.
package struct SessionConfiguration: Codable, Sendable, Equatable {
    /// Transfers of this session that may run at once against one host.
    package var maximumConnectionsPerHost: Int
    /// Seconds without a byte on an open transfer before the attempt is abandoned.
    package var timeoutIntervalForRequest: Double
    /// Seconds a task may live, from creation, before it fails with `timedOut`.
    package var timeoutIntervalForResource: Double
    /// Headers sent with every request of the session; a task's own headers win.
    package var httpAdditionalHeaders: [String: String]
    /// Whether `Content-Encoding: gzip` responses are stored decoded (true) or as sent (false).
    package var decodeContent: Bool
    /// How many times a transiently failed transfer is retried; nil retries until `timeoutIntervalForResource`.
    package var maximumRetries: Int?
    /// Seconds before the first retry, doubling after each failure; nil takes the service's `--retry-initial-delay`.
    package var retryInitialDelay: Double?
    /// The longest wait between retries, in seconds; nil takes the service's `--retry-maximum-delay`.
    package var retryMaximumDelay: Double?
    /// Seconds a finished download's content (and an upload's reply body) is kept after the task completed.
    package var retentionPeriod: Double
    /// Seconds its history (finished tasks, events with their deliveries, ended background tasks) is kept after it is
    /// over, when longer than `retentionPeriod`; nil takes the service's `--history-retention`.
    package var historyRetention: Double?
    /// What its transfers do with redirects (a task may choose otherwise).
    package var redirectPolicy: RedirectPolicy = .follow
    /// Whether its events are pushed to its webhook (the app launched to handle them); false keeps them in the log,
    /// readable, until it is turned on again.
    package var sessionSendsLaunchEvents = true
    /// isDiscretionary: its transfers run inside the service's discretionary window, or while nothing else waits.
    package var discretionary = false
    /// connectionProxyDictionary: the proxy its transfers go through; nil to connect directly.
    package var proxy: ProxySetting?
    /// Seconds an authentication challenge waits for its answer before the task fails (`userAuthenticationRequired`).
    package var challengeTimeout: Double = 300
    /// The bandwidth its transfers share, by time of day in UTC (``BandwidthSchedule``); nil: no limit of its own.
    package var bandwidthSchedule: String?

    /// `bandwidthSchedule` read (it was validated).
    package var bandwidth: BandwidthSchedule? {
        bandwidthSchedule.flatMap { try? BandwidthSchedule(utc: $0) }
    }

    package static let `default` = SessionConfiguration(
        maximumConnectionsPerHost: 6,
        timeoutIntervalForRequest: 60,
        timeoutIntervalForResource: 7 * 24 * 3600,
        httpAdditionalHeaders: [:],
        decodeContent: false,
        retentionPeriod: 7 * 24 * 3600
    )

    package init(
        maximumConnectionsPerHost: Int,
        timeoutIntervalForRequest: Double,
        timeoutIntervalForResource: Double,
        httpAdditionalHeaders: [String: String],
        decodeContent: Bool,
        retentionPeriod: Double
    ) {
        self.maximumConnectionsPerHost = maximumConnectionsPerHost
        self.timeoutIntervalForRequest = timeoutIntervalForRequest
        self.timeoutIntervalForResource = timeoutIntervalForResource
        self.httpAdditionalHeaders = httpAdditionalHeaders
        self.decodeContent = decodeContent
        self.retentionPeriod = retentionPeriod
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Self.default
        self.maximumConnectionsPerHost =
            try container.decodeIfPresent(Int.self, forKey: .maximumConnectionsPerHost) ?? defaults.maximumConnectionsPerHost
        self.timeoutIntervalForRequest =
            try container.decodeIfPresent(Double.self, forKey: .timeoutIntervalForRequest) ?? defaults.timeoutIntervalForRequest
        self.timeoutIntervalForResource =
            try container.decodeIfPresent(Double.self, forKey: .timeoutIntervalForResource) ?? defaults.timeoutIntervalForResource
        self.httpAdditionalHeaders =
            try container.decodeIfPresent([String: String].self, forKey: .httpAdditionalHeaders) ?? defaults.httpAdditionalHeaders
        self.decodeContent = try container.decodeIfPresent(Bool.self, forKey: .decodeContent) ?? defaults.decodeContent
        self.maximumRetries = try container.decodeIfPresent(Int.self, forKey: .maximumRetries)
        self.retryInitialDelay = try container.decodeIfPresent(Double.self, forKey: .retryInitialDelay)
        self.retryMaximumDelay = try container.decodeIfPresent(Double.self, forKey: .retryMaximumDelay)
        self.retentionPeriod = try container.decodeIfPresent(Double.self, forKey: .retentionPeriod) ?? defaults.retentionPeriod
        self.historyRetention = try container.decodeIfPresent(Double.self, forKey: .historyRetention)
        self.redirectPolicy = try container.decodeIfPresent(RedirectPolicy.self, forKey: .redirectPolicy) ?? defaults.redirectPolicy
        self.sessionSendsLaunchEvents =
            try container.decodeIfPresent(Bool.self, forKey: .sessionSendsLaunchEvents) ?? defaults.sessionSendsLaunchEvents
        self.discretionary = try container.decodeIfPresent(Bool.self, forKey: .discretionary) ?? defaults.discretionary
        self.proxy = try container.decodeIfPresent(ProxySetting.self, forKey: .proxy)
        self.challengeTimeout = try container.decodeIfPresent(Double.self, forKey: .challengeTimeout) ?? defaults.challengeTimeout
        self.bandwidthSchedule = try container.decodeIfPresent(String.self, forKey: .bandwidthSchedule)
    }

    /// Checks every field's range; the problem names the offending field.
    package func validate() throws(DomainError) {
        guard (1...64).contains(maximumConnectionsPerHost) else {
            throw .invalidField("configuration.maximumConnectionsPerHost", requirement: "must be an integer from 1 to 64")
        }
        guard timeoutIntervalForRequest > 0, timeoutIntervalForRequest <= 86_400 else {
            throw .invalidField(
                "configuration.timeoutIntervalForRequest",
                requirement: "must be a number of seconds greater than 0 and at most 86400"
            )
        }
        guard timeoutIntervalForResource > 0, timeoutIntervalForResource <= 365 * 86_400 else {
            throw .invalidField(
                "configuration.timeoutIntervalForResource",
                requirement: "must be a number of seconds greater than 0 and at most 31536000"
            )
        }
        if let maximumRetries, !(0...10_000).contains(maximumRetries) {
            throw .invalidField("configuration.maximumRetries", requirement: "must be an integer from 0 to 10000")
        }
        for (field, seconds) in [("retryInitialDelay", retryInitialDelay), ("retryMaximumDelay", retryMaximumDelay)] {
            if let seconds, !(seconds > 0 && seconds <= 86_400) {
                throw .invalidField("configuration.\(field)", requirement: "must be a number of seconds greater than 0 and at most 86400")
            }
        }
        guard retentionPeriod > 0, retentionPeriod <= 10 * 365 * 86_400 else {
            throw .invalidField(
                "configuration.retentionPeriod",
                requirement: "must be a number of seconds greater than 0 and at most 315360000"
            )
        }
        if let historyRetention, !(historyRetention > 0 && historyRetention <= 10 * 365 * 86_400) {
            throw .invalidField(
                "configuration.historyRetention",
                requirement: "must be a number of seconds greater than 0 and at most 315360000"
            )
        }
        if let initial = retryInitialDelay, let maximum = retryMaximumDelay, initial > maximum {
            throw .invalidField("configuration.retryInitialDelay", requirement: "must not exceed configuration.retryMaximumDelay")
        }
        guard challengeTimeout >= 1, challengeTimeout <= 86_400 else {
            throw .invalidField("configuration.challengeTimeout", requirement: "must be a number of seconds from 1 to 86400")
        }
        try HeaderValidation.validate(httpAdditionalHeaders, field: "configuration.httpAdditionalHeaders")
        if let bandwidthSchedule {
            guard bandwidthSchedule.count <= 1024 else {
                throw .invalidField("configuration.bandwidthSchedule", requirement: "must be at most 1024 characters")
            }
            do {
                _ = try BandwidthSchedule(utc: bandwidthSchedule)
            } catch {
                throw .invalidField("configuration.bandwidthSchedule", requirement: "is not a bandwidth schedule: \(error)")
            }
        }
    }
}
