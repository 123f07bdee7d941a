import Testing
import TransferdDomain

/// URLs as they are shown: a password is masked wherever the URL spells one, and a URL without one is left as given.
@Suite struct RedactionTests {
    @Test(arguments: [
        ("https://user:secret@example.com/file", "https://user:%3Credacted%3E@example.com/file"),
        ("http://user:secret@example.com", "http://user:%3Credacted%3E@example.com"),
        ("http://:secret@example.com:8080/a?b=c", "http://:%3Credacted%3E@example.com:8080/a?b=c"),
        ("HTTP://u:p@EXAMPLE.com/#frag", "HTTP://u:%3Credacted%3E@EXAMPLE.com/#frag"),
    ])
    func aPasswordIsMasked(url: String, shown: String) {
        #expect(Redaction.url(url) == shown)
        #expect(!Redaction.withoutPassword(url).contains("secret") && !Redaction.withoutPassword(url).contains(":p@"))
    }

    @Test(arguments: [
        "https://example.com/file",
        "https://user@example.com/file",
        "https://example.com/path@with:colon?q=a:b@c#x@y:z",
        "https://example.com?q=u:p@h",
        "https://[::1]:8443/",
        "not a url",
        "mailto:u:p@example.com",
    ])
    func aURLWithoutAPasswordInItsAuthorityIsShownAsGiven(url: String) {
        #expect(Redaction.url(url) == url)
        #expect(Redaction.withoutPassword(url) == url)
    }
}
