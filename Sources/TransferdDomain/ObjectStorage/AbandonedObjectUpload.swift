/// The multipart upload of a download into a bucket that ended without its object (it failed, or was cancelled): to
/// be aborted, so that the store frees its parts.
package struct AbandonedObjectUpload: Sendable, Equatable {
    package let taskID: Int64
    package let tenantID: Int64
    package let location: ObjectLocation
    package let progress: ObjectUploadProgress

    package init(taskID: Int64, tenantID: Int64, location: ObjectLocation, progress: ObjectUploadProgress) {
        (self.taskID, self.tenantID, self.location, self.progress) = (taskID, tenantID, location, progress)
    }
}
