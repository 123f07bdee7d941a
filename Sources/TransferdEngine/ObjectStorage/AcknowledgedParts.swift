import TransferdDomain

/// The parts of a multipart upload as the store acknowledges them, which is in any order when several are in flight:
/// `upload` holds the acknowledged prefix (parts 1…n, each acknowledged), which is what a checkpoint records and a
/// later attempt continues after; a part acknowledged before one ahead of it waits in `early` until the gap closes.
struct AcknowledgedParts: Equatable {
    private(set) var upload: ObjectUploadProgress
    private var early: [Int: ObjectUploadProgress.Part] = [:]

    init(_ upload: ObjectUploadProgress) {
        self.upload = upload
    }

    /// Records an acknowledged part; the prefix grows by it and every early part it joins.
    mutating func acknowledge(_ part: ObjectUploadProgress.Part) {
        early[part.number] = part
        while let next = early.removeValue(forKey: upload.parts.count + 1) { upload.parts.append(next) }
    }
}
