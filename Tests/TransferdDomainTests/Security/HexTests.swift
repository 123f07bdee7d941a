import Crypto
import Foundation
import Testing
import TransferdDomain

/// Hexadecimal and the random identifiers written with it.
@Suite struct HexTests {
    @Test func bytesAreWrittenAsTwoLowercaseDigitsEach() {
        #expect(Hex.string([0x00, 0x0F, 0xA5, 0xFF]) == "000fa5ff")
        #expect(Hex.string(SHA256.hash(data: Data("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.random(bytes: 3).count == 6)
    }

    @Test func aDeliveryIsNamedByMessageAndOneHundredTwentyEightRandomBits() {
        var event = Event(sessionId: 1, sequence: 1, taskIdentifier: 1, payload: .taskCreated(StateChange(.suspended)), createdAt: Date())
        event.id = 1
        let identifiers = (0..<1000).map { _ in Delivery(pending: event).messageId }
        #expect(identifiers.allSatisfy { $0.wholeMatch(of: /msg_[0-9a-f]{32}/) != nil })
        #expect(Set(identifiers).count == identifiers.count)
        // every digit position takes more than one value: no byte is left unfilled
        for position in 4..<36 {
            let digits = Set(identifiers.map { $0.utf8[$0.utf8.index($0.utf8.startIndex, offsetBy: position)] })
            #expect(digits.count > 1, "digit \(position)")
        }
    }

    @Test func aGeneratedAPITokenParsesBackWithItsIdAndSecret() throws {
        let text = APIKey.Token.generate()
        let token = try #require(APIKey.Token(text))
        #expect(text.wholeMatch(of: /trd_[0-9a-f]{16}_[0-9a-f]{64}/) != nil)
        #expect(token.id == String(text.dropFirst(4).prefix(16)))
        #expect(token.secret == Data(text.suffix(64).utf8))
        #expect(APIKey.Token.generate() != text)
    }
}
