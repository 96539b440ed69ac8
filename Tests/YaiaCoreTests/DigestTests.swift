import Testing
import YaiaCore
import YaiaKit

@Suite("Digest: yaia-digest-1") struct DigestTests {
    func digest(_ bytes: [UInt8], firstByte: UInt8? = nil) -> String {
        bytes.withUnsafeBytes { Digest.hex(Digest.value($0, firstByte: firstByte)) }
    }

    /// Values from an independent implementation of the specification (the
    /// one in Tests/python/test_journal.py): short texts (padded), a whole
    /// block, and longer texts whose last block overlaps the one before.
    @Test func referenceVectors() {
        #expect(digest([]) == "bc234c778d869117")
        #expect(digest(Array(#"{"viewModel":{}}"#.utf8)) == "6a1707a0f15563b4")
        #expect(digest((0..<100).map { UInt8($0) }) == "e7da61f376c5de38")
    }

    /// Every length around the block size (48) and its multiples: a changed
    /// byte anywhere changes the digest, and the count is part of it (a text
    /// and the same text with a zero byte more differ).
    @Test func everyByteAndTheCountMatter() {
        for count in [1, 8, 47, 48, 49, 95, 96, 97, 150] {
            let text = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let base = digest(text)
            for i in 0..<count {
                var changed = text
                changed[i] ^= 0x20
                #expect(digest(changed) != base, "count \(count), byte \(i)")
            }
            #expect(digest(text + [0]) != base, "count \(count)")
        }
    }

    @Test func aReplacedFirstByteIsAsIfWritten() {
        for count in [1, 7, 47, 48, 49, 100, 150] {
            var text = (0..<count).map { UInt8(truncatingIfNeeded: $0 &+ 65) }
            let replaced = digest(text, firstByte: UInt8(ascii: "{"))
            text[0] = UInt8(ascii: "{")
            #expect(replaced == digest(text), "count \(count)")
        }
    }

    /// The journal digests a response's last member where it was written:
    /// the same as digesting {"viewModel":...} on its own.
    @Test func anObjectsLastMemberInPlace() throws {
        let viewModel: JSON = ["email": "h\u{e9}l\u{e8}ne@example.com", "canSubmit": false, "items": [1, 2.5, "three"]]
        let response: JSON = ["ok": true, "scene": 1, "seq": 2, "viewModel": viewModel]
        guard case .object(let o) = response else { throw DigestError.notAnObject }
        var writer = JSONWriter()
        writer.raw("[")  // what comes before the object does not matter
        let last = writer.writeObject(o)
        let inPlace = writer.digestOfObject(from: last).map(Digest.hex)
        let noByteBefore = writer.digestOfObject(from: 0)  // not a member's offset
        let alone = (["viewModel": viewModel] as JSON).serializedBytes()
        #expect(inPlace == digest(alone))
        #expect(noByteBefore == nil)
    }

    enum DigestError: Error { case notAnObject }
}
