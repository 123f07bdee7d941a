import Foundation
import Testing

@testable import TransferdS3

/// The signer against AWS's published S3 examples ("Signature Calculations for the Authorization Header" and
/// "Authenticating Requests: Using Query Parameters", Amazon S3 API Reference): their key, bucket and date.
@Suite struct SigV4SignerTests {
    static let signer = SigV4Signer(
        credentials: S3Credentials(accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1"
    )
    /// 2013-05-24T00:00:00Z.
    static let date = Date(timeIntervalSince1970: 1_369_353_600)
    static let host = "examplebucket.s3.amazonaws.com"

    private func signature(_ request: SigV4Signer.Request) -> String? {
        let authorization = Self.signer.sign(request, at: Self.date).first { $0.name == "Authorization" }?.value ?? ""
        return authorization.components(separatedBy: "Signature=").last
    }

    @Test func getObjectWithRange() {
        let request = SigV4Signer.Request(method: "GET", host: Self.host, path: "/test.txt", headers: [("Range", "bytes=0-9")])
        #expect(signature(request) == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test func putObjectWithEncodedKeyAndPayload() {
        let request = SigV4Signer.Request(
            method: "PUT",
            host: Self.host,
            path: URIEncoding.path("/test$file.text"),
            headers: [("Date", "Fri, 24 May 2013 00:00:00 GMT"), ("x-amz-storage-class", "REDUCED_REDUNDANCY")],
            payloadHash: "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"
        )
        let headers = Self.signer.sign(request, at: Self.date)
        #expect(
            headers.first { $0.name == "Authorization" }?.value
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"
        )
        #expect(headers.first { $0.name == "x-amz-date" }?.value == "20130524T000000Z")
    }

    @Test func getBucketLifecycleWithValuelessParameter() {
        let request = SigV4Signer.Request(method: "GET", host: Self.host, path: "/", query: [("lifecycle", "")])
        #expect(signature(request) == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
    }

    @Test func listObjectsWithSortedQuery() {
        let request = SigV4Signer.Request(method: "GET", host: Self.host, path: "/", query: [("prefix", "J"), ("max-keys", "2")])
        #expect(signature(request) == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test func presignedGet() {
        let query = Self.signer.presignedQuery(
            SigV4Signer.Request(method: "GET", host: Self.host, path: "/test.txt"),
            at: Self.date,
            expires: 86400
        )
        #expect(query.hasSuffix("&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"))
        #expect(query.contains("X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"))
    }

    @Test(arguments: [
        ("a b", "a%20b"), ("a+b=c&d", "a%2Bb%3Dc%26d"), ("100%", "100%25"), ("ключ", "%D0%BA%D0%BB%D1%8E%D1%87"),
        ("A-z_0.9~", "A-z_0.9~"), ("a/b", "a%2Fb"),
    ])
    func queryComponentsAreEncodedTheAWSWay(text: String, encoded: String) {
        #expect(URIEncoding.component(text) == encoded)
    }

    @Test func pathsKeepTheirSlashes() {
        #expect(URIEncoding.path("dir/sub dir/a+b.bin") == "dir/sub%20dir/a%2Bb.bin")
    }

    @Test func headerValuesAreTrimmedAndSpacesFolded() {
        let request = SigV4Signer.Request(method: "GET", host: "h", path: "/", headers: [("X-Amz-Meta-Note", "  a   b  ")])
        #expect(Self.signer.canonicalRequest(request).text.contains("\nx-amz-meta-note:a b\n"))
    }

    @Test func theSecretIsNeverDescribed() {
        #expect(!String(describing: Self.signer.credentials).contains("EXAMPLEKEY"))
    }
}
