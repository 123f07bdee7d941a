/// A download's content as an object in one of the tenant's stores, once the object exists.
package struct StoredObject: Codable, Sendable, Equatable {
    package var storage: String
    package var bucket: String
    package var key: String
    /// The object's `ETag`, quotes included, as the store gave it.
    package var etag: String
    /// Where the object is (`https://bucket.endpoint/key`, or path style), unsigned.
    package var url: String

    package init(storage: String, bucket: String, key: String, etag: String, url: String) {
        (self.storage, self.bucket, self.key, self.etag, self.url) = (storage, bucket, key, etag, url)
    }

    /// The object as a task names it; its key was checked when the task named it.
    package var location: ObjectLocation { ObjectLocation(storage: storage, key: ObjectKey(madeFrom: key)) }
}
