@testable import Accounts
import FeedModel
import Testing

@Suite struct AccountsTests {
    @Test func tokensAreLongRandomBase64URLAndStoredAsTheirSHA256() throws {
        let tokens = (0..<50).map { _ in SessionToken() }
        #expect(Set(tokens.map(\.text)).count == 50)
        for token in tokens {
            // 32 bytes (256 bits) are 43 base64url characters without padding.
            #expect(token.text.utf8.count == 43)
            #expect(token.text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            let hash = try token.hash
            let again = try SessionToken(presented: token.text).hash
            #expect(hash.count == 64 && hash == again)
            #expect(!token.description.contains(token.text), "a token never reaches a log")
        }
        // FIPS 180-2's test vector.
        #expect(try SessionToken.hash(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func base64URLFollowsRFC4648() {
        let vectors: [(String, String)] = [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"),
                                           ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")]
        for (plain, encoded) in vectors { #expect(Base64URL.encode(Array(plain.utf8)) == encoded) }
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }

    @Test func passwordsAreBcryptHashedAndChecked() throws {
        // The lowest cost bcrypt allows keeps the test quick; the product uses PasswordRule.bcryptCost.
        let hash = try Password.hash("correct horse", cost: 4)
        #expect(hash.hasPrefix("$2") && !hash.contains("correct horse"))
        #expect(Password.verify("correct horse", hash: hash))
        #expect(!Password.verify("correct horsf", hash: hash))
        #expect(!Password.verify("correct horse", hash: "not a hash"))
        #expect(try Password.hash("correct horse", cost: 4) != hash, "salted")
        #expect(throws: Password.Problem.tooShort) { try Password.hash("short", cost: 4) }
        #expect(throws: Password.Problem.tooLong) { try Password.hash(String(repeating: "x", count: 73), cost: 4) }
        #expect(throws: Password.Problem.containsNUL) { try Password.hash("abcdefgh\u{0}ijk", cost: 4) }
    }
}
