#if canImport(Glibc)
import Glibc
#endif

/// Canonical, compact JSON text.
///
/// Canonical means: object keys in the order of their UTF-8 bytes (the order
/// `JSONObject` keeps), no white space, integers as plain digits, doubles
/// that hold a whole number within the 64-bit integer range as plain digits
/// too (but -0.0 as "-0.0"), other doubles in the shortest form that reads
/// back to the same value. Strings escape only
/// `"`, `\` and control characters (`\b \f \n \r \t`, others as `\u00XX`);
/// everything else is raw UTF-8. Equal values give equal bytes.
public struct JSONWriter: ~Copyable {
    // A raw malloc'd buffer: no copy-on-write checks or refcounting per byte,
    // and the ABI can hand it to C as it is.
    // @usableFromInline so that the small appends inline into other modules.
    @usableFromInline var base: UnsafeMutablePointer<UInt8>?
    @usableFromInline var count = 0
    @usableFromInline var capacity = 0
    /// Set when memory ran out; the output is then unusable and `take` gives nil.
    @usableFromInline var failed = false
    /// Whether `base` is the caller's memory (`init(borrowing:)`), not malloc's.
    @usableFromInline var borrowed = false

    package init(capacity: Int = 256) {
        base = malloc(capacity)?.assumingMemoryBound(to: UInt8.self)
        self.capacity = base == nil ? 0 : capacity
        failed = base == nil
    }

    /// Writes into `buffer` until the text outgrows it, then moves to memory
    /// of its own: a short text needs no heap. `buffer` must outlive the
    /// writer (stack memory of the caller's, typically).
    package init(borrowing buffer: UnsafeMutableRawBufferPointer) {
        base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
        capacity = base == nil ? 0 : buffer.count
        borrowed = base != nil
    }

    deinit { if !borrowed { free(base) } }

    /// Forgets the text so far, keeping the memory.
    package mutating func reset() { count = 0 }

    /// Forgets what was written after the first `byteCount` bytes.
    package mutating func truncate(to byteCount: Int) { count = min(count, max(byteCount, 0)) }

    /// How many bytes have been written.
    @usableFromInline package var byteCount: Int { count }

    /// Reads the text so far without copying it.
    @inlinable
    package func withBytes<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        guard let base, !failed else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The text so far, as bytes.
    package consuming func takeBytes() -> [UInt8] {
        guard let base, !failed else { return [] }
        return Array(UnsafeBufferPointer(start: base, count: count))
    }

    /// The text as a NUL-terminated malloc'd string, owned by the caller (free()).
    package consuming func takeCString() -> UnsafeMutablePointer<CChar>? {
        if borrowed { moveToHeap(capacity: count + 1) }
        reserve(1)
        guard let buffer = base, !failed else { return nil }
        buffer[count] = 0
        base = nil
        return UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: CChar.self)
    }

    /// The text as a `JSONText`, which takes the writer's memory as it is;
    /// nil when memory ran out.
    package consuming func takeText() -> JSONText? {
        let n = count
        guard let text = takeCString() else { return nil }
        return JSONText(taking: text, count: n)
    }

    /// The text so far, NUL-terminated, still owned by the writer: valid
    /// until it is next changed or freed.
    package mutating func cStringView() -> UnsafePointer<CChar>? {
        reserve(1)
        guard let buffer = base, !failed else { return nil }
        buffer[count] = 0
        return UnsafeRawPointer(buffer).assumingMemoryBound(to: CChar.self)
    }

    /// The memory it holds.
    package var capacityInBytes: Int { capacity }

    @usableFromInline
    mutating func reserve(_ extra: Int) {
        guard count + extra > capacity, !failed else { return }
        var newCapacity = Swift.max(capacity * 2, 64)
        while newCapacity < count + extra { newCapacity *= 2 }
        if borrowed { return moveToHeap(capacity: newCapacity) }
        guard let grown = realloc(base, newCapacity) else {
            failed = true
            return
        }
        base = grown.assumingMemoryBound(to: UInt8.self)
        capacity = newCapacity
    }

    /// From borrowed memory to malloc's, the text so far copied.
    @usableFromInline
    mutating func moveToHeap(capacity newCapacity: Int) {
        guard let own = malloc(newCapacity)?.assumingMemoryBound(to: UInt8.self) else {
            failed = true
            return
        }
        if let base { own.update(from: base, count: count) }
        base = own
        capacity = newCapacity
        borrowed = false
    }

    @inlinable
    mutating func append(_ byte: UInt8) {
        if count == capacity { reserve(1) }
        guard let base, !failed else { return }
        base[count] = byte
        count += 1
    }

    /// Swaps buffers (and what they hold) with `other`.
    package mutating func exchange(with other: inout JSONWriter) {
        swap(&base, &other.base)
        swap(&count, &other.count)
        swap(&capacity, &other.capacity)
        swap(&failed, &other.failed)
        swap(&borrowed, &other.borrowed)
    }

    /// Lets `body` write at most `maxCount` bytes directly into the buffer;
    /// it returns how many it wrote.
    @inlinable
    package mutating func appendDirect(maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if count + maxCount > capacity { reserve(maxCount) }
        guard let base, !failed else { return }
        count += body(base + count)
    }

    /// Replaces a `null}` that ends the text with what `body` writes, then
    /// `}`: for an object whose last member was left null to be filled in.
    package mutating func replaceNullAtEnd(_ body: (inout JSONWriter) -> Void) {
        guard let base, !failed, count >= 5, base[count - 5] == UInt8(ascii: "n"), base[count - 1] == UInt8(ascii: "}") else { return }
        count -= 5
        body(&self)
        append(UInt8(ascii: "}"))
    }

    /// Appends bytes that are already JSON text.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        append(bytes.bindMemory(to: UInt8.self))
    }

    @inlinable @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = bytes.count
        guard let source = bytes.baseAddress, n > 0 else { return }
        if count + n > capacity { reserve(n) }
        guard let base, !failed else { return }
        if n <= 16 {
            // Short runs (keys, punctuation) copy faster by hand than through
            // memcpy: as two words that may overlap, or byte by byte.
            let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(base + count)
            if n >= 8 {
                let head = from.loadUnaligned(as: UInt64.self), tail = from.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
                to.storeBytes(of: head, as: UInt64.self)
                to.storeBytes(of: tail, toByteOffset: n - 8, as: UInt64.self)
            } else if n >= 4 {
                let head = from.loadUnaligned(as: UInt32.self), tail = from.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
                to.storeBytes(of: head, as: UInt32.self)
                to.storeBytes(of: tail, toByteOffset: n - 4, as: UInt32.self)
            } else {
                for i in 0..<n { base[count + i] = source[i] }
            }
        } else {
            (base + count).update(from: source, count: n)
        }
        count += n
    }

    @inlinable @inline(__always)
    package mutating func raw(_ s: StaticString) {
        append(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    @usableFromInline package mutating func write(_ value: JSON) {
        switch value {
        case .null: raw("null")
        case .bool(let b): b ? raw("true") : raw("false")
        case .int(let i): writeInteger(i)
        case .uint(let u): writeUnsigned(u)
        case .double(let d): writeDouble(d)
        case .string(let s): writeString(s)
        case .array(let a):
            append(UInt8(ascii: "["))
            // Through the buffers: elements are written, not copied (no retain each).
            var first = true
            a.forEachRun { elements in
                for i in elements.indices {
                    if !first { append(UInt8(ascii: ",")) }
                    first = false
                    write(elements[i])
                }
            }
            append(UInt8(ascii: "]"))
        case .object(let o): writeObject(o)
        }
    }

    /// Writes an object and answers the offset at which its last member
    /// begins (or its "}", when it has none), for `digestOfObject(from:)`.
    @discardableResult
    package mutating func writeObject(_ o: JSONObject) -> Int {
        append(UInt8(ascii: "{"))
        var last = count
        o.members.withUnsafeBufferPointer { members in
            for i in members.indices {
                if i > 0 { append(UInt8(ascii: ",")) }
                last = count
                writeString(members[i].key)
                append(UInt8(ascii: ":"))
                write(members[i].value)
            }
        }
        append(UInt8(ascii: "}"))
        return last
    }

    /// The digest of the object made of the members written from `start`
    /// (a member's offset, from `writeObject`) to the end, which closes the
    /// object: the "{" or "," before `start` is taken as that object's "{".
    package func digestOfObject(from start: Int) -> UInt64? {
        guard let base, !failed, start >= 1, start <= count else { return nil }
        return Digest.value(UnsafeRawBufferPointer(start: base + start - 1, count: count - start + 1), firstByte: UInt8(ascii: "{"))
    }

    @inlinable
    package mutating func writeInteger(_ value: Int64) {
        if value < 0 {
            append(UInt8(ascii: "-"))
            writeUnsigned(value.magnitude)
        } else {
            writeUnsigned(UInt64(value))
        }
    }

    @inlinable
    package mutating func writeUnsigned(_ value: UInt64) {
        // Ids and seqs are mostly small.
        if value < 10 { return append(UInt8(truncatingIfNeeded: value) &+ 48) }
        var digits = 1
        var v = value
        while v >= 10 {
            v /= 10
            digits += 1
        }
        if count + digits > capacity { reserve(digits) }
        guard let base, !failed else { return }
        var i = count + digits
        v = value
        repeat {
            i -= 1
            base[i] = UInt8(truncatingIfNeeded: v % 10) &+ 48
            v /= 10
        } while v > 0
        count += digits
    }

    package mutating func writeDouble(_ d: Double) {
        guard d.isFinite else { raw("null"); return }
        // -0.0 keeps its sign (JSON equality tells it from 0, so bytes stay canonical).
        if d == 0 && d.sign == .minus {
            raw("-0.0")
            return
        }
        // Whole numbers print as digits, like the integers they equal.
        if d == d.rounded() {
            if let i = Int64(exactly: d) {
                writeInteger(i)
                return
            }
            if let u = UInt64(exactly: d) {
                writeUnsigned(u)
                return
            }
        }
        // Swift prints the shortest text that reads back to the same double.
        var text = d.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        text.withUTF8 { append($0) }
    }

    @usableFromInline package mutating func writeString(_ s: String) {
        // Native strings, small or not, lend their UTF-8 without a copy.
        if s.utf8.withContiguousStorageIfAvailable({ writeString(utf8: $0) }) == nil {
            var s = s
            s.withUTF8 { writeString(utf8: $0) }
        }
    }

    package mutating func writeString(utf8 buffer: UnsafeBufferPointer<UInt8>) {
        let n = buffer.count
        guard let source = buffer.baseAddress else {
            raw("\"\"")
            return
        }
        if count + n + 2 > capacity { reserve(n + 2) }
        guard let base, !failed else { return }
        // Most strings need no escape: copy while checking, in one pass.
        let out = base + count + 1
        var clean = 0
        while clean < n {
            let c = source[clean]
            if c < 0x20 || c == 0x22 || c == 0x5C { break }
            out[clean] = c
            clean += 1
        }
        base[count] = UInt8(ascii: "\"")
        count += 1 + clean
        if clean == n {
            base[count] = UInt8(ascii: "\"")
            count += 1
            return
        }
        var start = clean
        var i = clean
        while i < n {
            let c = source[i]
            if c >= 0x20 && c != 0x22 && c != 0x5C {
                i += 1
                continue
            }
            if start < i { append(UnsafeBufferPointer(start: source + start, count: i - start)) }
            append(UInt8(ascii: "\\"))
            switch c {
            case 0x22: append(UInt8(ascii: "\""))
            case 0x5C: append(UInt8(ascii: "\\"))
            case 0x08: append(UInt8(ascii: "b"))
            case 0x0C: append(UInt8(ascii: "f"))
            case 0x0A: append(UInt8(ascii: "n"))
            case 0x0D: append(UInt8(ascii: "r"))
            case 0x09: append(UInt8(ascii: "t"))
            default:
                let hex: StaticString = "0123456789abcdef"
                append(UInt8(ascii: "u"))
                append(48)
                append(48)
                append(hex.utf8Start[Int(c >> 4)])
                append(hex.utf8Start[Int(c & 15)])
            }
            i += 1
            start = i
        }
        if start < n { append(UnsafeBufferPointer(start: source + start, count: n - start)) }
        append(UInt8(ascii: "\""))
    }
}

/// JSON text that owns its bytes (NUL-terminated, from malloc): a writer's
/// output handed on, to a queue and then to C, without another copy. Its
/// bytes never change, so it is shared across threads as it is.
public final class JSONText: @unchecked Sendable, Equatable {
    /// Nil once taken by `takeCString`, which only the sole holder may do.
    private var start: UnsafeMutablePointer<CChar>?
    package let count: Int

    init(taking start: UnsafeMutablePointer<CChar>, count: Int) {
        self.start = start
        self.count = count
    }

    deinit { free(start) }

    package var bytes: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: UnsafeRawPointer(start)?.assumingMemoryBound(to: UInt8.self), count: start == nil ? 0 : count)
    }

    /// The text as a malloc'd, NUL-terminated string owned by the caller
    /// (free()): `text`'s own memory when nothing else holds `text`,
    /// otherwise a copy.
    package static func takeCString(_ text: inout JSONText) -> UnsafeMutablePointer<CChar>? {
        if isKnownUniquelyReferenced(&text), let start = text.start {
            text.start = nil
            return start
        }
        guard let start = text.start, let copy = malloc(text.count + 1)?.assumingMemoryBound(to: CChar.self) else { return nil }
        copy.update(from: start, count: text.count + 1)
        return copy
    }

    public static func == (a: JSONText, b: JSONText) -> Bool {
        a === b || a.bytes.elementsEqual(b.bytes)
    }
}

extension JSON {
    /// The canonical JSON text of this value.
    public func serialized() -> String {
        String(decoding: serializedBytes(), as: UTF8.self)
    }

    /// The canonical JSON text of this value, as UTF-8 bytes.
    package func serializedBytes() -> [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.takeBytes()
    }
}

/// Digests of view models, as journals record them: "yaia-digest-1", a
/// 64-bit hash of the canonical JSON bytes made for short texts (a view
/// model is a few hundred bytes), where a hash's latency matters more than
/// its throughput. With M(x, y) the high 64 bits of the 128-bit product x*y
/// xor its low 64 bits, three lanes (a, b, c) = (K0, K1, K2) each take 16
/// bytes (two little-endian words x, y) of every 48: a = M(x ^ K1, y ^ a),
/// b = M(x ^ K2, y ^ b), c = M(x ^ K3, y ^ c). The last block is the last
/// 48 bytes (overlapping the one before when the count is not a multiple of
/// 48); a text shorter than 48 bytes is padded with zeros to 48. Then
/// h = M(a ^ b ^ K0, c ^ count) and the digest is M(h ^ K2, h ^ K3). The
/// constants are the first 64 bits of the fractional parts of the square
/// roots of 2, 3, 5 and 7.
package enum Digest {
    /// A digest as journals write it: 16 lowercase hex digits.
    package static func hex(_ h: UInt64) -> String {
        var out = [UInt8](repeating: 0, count: 16)
        out.withUnsafeMutableBufferPointer { if let p = $0.baseAddress { writeHex(h, to: p) } }
        return String(decoding: out, as: UTF8.self)
    }

    /// Writes those 16 hex digits at `p`.
    package static func writeHex(_ h: UInt64, to p: UnsafeMutablePointer<UInt8>) {
        let digits: StaticString = "0123456789abcdef"
        for i in 0..<16 { p[15 - i] = digits.utf8Start[Int(h >> (UInt64(i) * 4) & 15)] }
    }

    static let k0: UInt64 = 0x6A09_E667_F3BC_C908
    static let k1: UInt64 = 0xBB67_AE85_84CA_A73B
    static let k2: UInt64 = 0x3C6E_F372_FE94_F82B
    static let k3: UInt64 = 0xA54F_F53A_5F1D_36F1

    @inline(__always)
    static func fold(_ x: UInt64, _ y: UInt64) -> UInt64 {
        let p = x.multipliedFullWidth(by: y)
        return p.high ^ p.low
    }

    /// The digest of `raw`, or of `raw` with its first byte replaced by
    /// `firstByte` (so that text need not be copied, nor changed in place).
    package static func value(_ raw: UnsafeRawBufferPointer, firstByte: UInt8? = nil) -> UInt64 {
        var a = k0, b = k1, c = k2
        let n = raw.count
        @inline(__always) func mix(_ p: UnsafeRawPointer, first: Bool) {
            @inline(__always) func word(_ at: Int) -> UInt64 { p.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian }
            var x = word(0)
            if first, let firstByte { x = x & ~0xFF | UInt64(firstByte) }
            a = fold(x ^ k1, word(8) ^ a)
            b = fold(word(16) ^ k2, word(24) ^ b)
            c = fold(word(32) ^ k3, word(40) ^ c)
        }
        if let p = raw.baseAddress, n >= 48 {
            var i = 0
            while n - i > 48 {
                mix(p + i, first: i == 0)
                i += 48
            }
            mix(p + n - 48, first: n == 48)
        } else {
            var last: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &last) { block in
                if let p = raw.baseAddress, let to = block.baseAddress { to.copyMemory(from: p, byteCount: n) }
                if let p = UnsafeRawPointer(block.baseAddress) { mix(p, first: n > 0) }
            }
        }
        let h = fold(a ^ b ^ k0, c ^ UInt64(n))
        return fold(h ^ k2, h ^ k3)
    }
}
