import Testing
import YaiaCore

@Suite struct Base64Tests {
    @Test(arguments: [
        ("", ""), ("Zg==", "f"), ("Zm8=", "fo"), ("Zm9v", "foo"), ("Zm9vYg==", "foob"), ("Zm9vYmE=", "fooba"),
        ("Zm9vYmFy", "foobar"), ("Zm9vYg", "foob"),  // RFC 4648 vectors; padding optional
    ])
    func decodesTheRFCVectors(text: String, expected: String) {
        #expect(Base64.decode(text) == Array(expected.utf8))
    }

    @Test func decodesEveryByte() {
        // All 256 byte values, "AAECAwQF...+/w==".
        let bytes = (0...255).map { UInt8($0) }
        let text = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn+AgYKDhIWGh4iJiouMjY6PkJGSk5SVlpeYmZqbnJ2en6ChoqOkpaanqKmqq6ytrq+wsbKztLW2t7i5uru8vb6/wMHCw8TFxsfIycrLzM3Oz9DR0tPU1dbX2Nna29zd3t/g4eLj5OXm5+jp6uvs7e7v8PHy8/T19vf4+fr7/P3+/w=="
        #expect(Base64.decode(text) == bytes)
    }

    @Test(arguments: ["Zg=a", "Z", "Zh==", "Zm9v!", "Zm9v Zg==", "Zg==="])
    func refusesWhatIsNotBase64(text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
