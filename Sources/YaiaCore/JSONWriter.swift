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

    public init(capacity: Int = 256) {
        base = malloc(capacity)?.assumingMemoryBound(to: UInt8.self)
        self.capacity = base == nil ? 0 : capacity
        failed = base == nil
    }

    deinit { free(base) }

    /// Forgets the text so far, keeping the memory.
    public mutating func reset() { count = 0 }

    /// How many bytes have been written.
    public var byteCount: Int { count }

    /// Reads the text so far without copying it.
    public func withBytes<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        guard let base, !failed else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The text so far, as bytes.
    public consuming func takeBytes() -> [UInt8] {
        guard let base, !failed else { return [] }
        return Array(UnsafeBufferPointer(start: base, count: count))
    }

    /// The text as a NUL-terminated malloc'd string, owned by the caller (free()).
    public consuming func takeCString() -> UnsafeMutablePointer<CChar>? {
        reserve(1)
        guard let buffer = base, !failed else { return nil }
        buffer[count] = 0
        base = nil
        return UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: CChar.self)
    }

    @usableFromInline
    mutating func reserve(_ extra: Int) {
        guard count + extra > capacity, !failed else { return }
        var newCapacity = Swift.max(capacity * 2, 64)
        while newCapacity < count + extra { newCapacity *= 2 }
        guard let grown = realloc(base, newCapacity) else {
            failed = true
            return
        }
        base = grown.assumingMemoryBound(to: UInt8.self)
        capacity = newCapacity
    }

    @inlinable
    mutating func append(_ byte: UInt8) {
        if count == capacity { reserve(1) }
        guard let base, !failed else { return }
        base[count] = byte
        count += 1
    }

    /// Lets `body` write at most `maxCount` bytes directly into the buffer;
    /// it returns how many it wrote.
    public mutating func appendDirect(maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if count + maxCount > capacity { reserve(maxCount) }
        guard let base, !failed else { return }
        count += body(base + count)
    }

    /// Appends bytes that are already JSON text.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        append(bytes.bindMemory(to: UInt8.self))
    }

    @inlinable
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        if count + bytes.count > capacity { reserve(bytes.count) }
        guard let base, !failed else { return }
        if bytes.count <= 16 {
            // Short runs (keys, punctuation) copy faster by hand than through memcpy.
            for i in 0..<bytes.count { base[count + i] = source[i] }
        } else {
            (base + count).update(from: source, count: bytes.count)
        }
        count += bytes.count
    }

    @inlinable
    public mutating func raw(_ s: StaticString) {
        append(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    public mutating func write(_ value: JSON) {
        switch value {
        case .null: raw("null")
        case .bool(let b): b ? raw("true") : raw("false")
        case .int(let i): writeInteger(i)
        case .uint(let u): writeUnsigned(u)
        case .double(let d): writeDouble(d)
        case .string(let s): writeString(s)
        case .array(let a):
            append(UInt8(ascii: "["))
            for i in a.indices {
                if i > 0 { append(UInt8(ascii: ",")) }
                write(a[i])
            }
            append(UInt8(ascii: "]"))
        case .object(let o):
            append(UInt8(ascii: "{"))
            for i in o.members.indices {
                if i > 0 { append(UInt8(ascii: ",")) }
                writeString(o.members[i].key)
                append(UInt8(ascii: ":"))
                write(o.members[i].value)
            }
            append(UInt8(ascii: "}"))
        }
    }

    @inlinable
    public mutating func writeInteger(_ value: Int64) {
        if value < 0 {
            append(UInt8(ascii: "-"))
            writeUnsigned(value.magnitude)
        } else {
            writeUnsigned(UInt64(value))
        }
    }

    @inlinable
    public mutating func writeUnsigned(_ value: UInt64) {
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

    public mutating func writeDouble(_ d: Double) {
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

    public mutating func writeString(_ s: String) {
        // Native strings, small or not, lend their UTF-8 without a copy.
        if s.utf8.withContiguousStorageIfAvailable({ writeString(utf8: $0) }) == nil {
            var s = s
            s.withUTF8 { writeString(utf8: $0) }
        }
    }

    public mutating func writeString(utf8 buffer: UnsafeBufferPointer<UInt8>) {
        let n = buffer.count
        guard let source = buffer.baseAddress else {
            raw("\"\"")
            return
        }
        // Most strings need no escape: find out, then copy them in one go.
        var clean = 0
        while clean < n {
            let c = source[clean]
            if c < 0x20 || c == 0x22 || c == 0x5C { break }
            clean += 1
        }
        if count + n + 2 > capacity { reserve(n + 2) }
        guard let base, !failed else { return }
        base[count] = UInt8(ascii: "\"")
        (base + count + 1).update(from: source, count: clean)
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

extension JSON {
    /// The canonical JSON text of this value.
    public func serialized() -> String {
        String(decoding: serializedBytes(), as: UTF8.self)
    }

    /// The canonical JSON text of this value, as UTF-8 bytes.
    public func serializedBytes() -> [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.takeBytes()
    }
}

/// "yaia-digest-1": FNV-1a's constants applied to little-endian 8-byte words
/// of the canonical JSON bytes, then a murmur3 finalizer; 16 hex digits.
public enum Digest {
    /// A digest as journals write it: 16 lowercase hex digits.
    public static func hex(_ h: UInt64) -> String {
        let digits: StaticString = "0123456789abcdef"
        var out = [UInt8](repeating: 0, count: 16)
        for i in 0..<16 { out[15 - i] = digits.utf8Start[Int(h >> (UInt64(i) * 4) & 15)] }
        return String(decoding: out, as: UTF8.self)
    }

    /// The same digest, fed in pieces (so bytes need not be copied together).
    public struct Stream {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        var word: UInt64 = 0
        var filled = 0
        var total = 0

        public init() {}

        public mutating func feed(_ raw: UnsafeRawBufferPointer) {
            var i = 0
            total += raw.count
            // Finish a partial word first, then whole words straight from memory.
            while filled != 0 && i < raw.count {
                word |= UInt64(raw[i]) << (UInt64(filled) * 8)
                filled += 1
                i += 1
                if filled == 8 {
                    h = (h ^ word) &* 0x0000_0100_0000_01b3
                    word = 0
                    filled = 0
                }
            }
            while i + 8 <= raw.count {
                h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self).littleEndian) &* 0x0000_0100_0000_01b3
                i += 8
            }
            while i < raw.count {
                word |= UInt64(raw[i]) << (UInt64(filled) * 8)
                filled += 1
                i += 1
            }
        }

        public mutating func feed(_ s: StaticString) {
            feed(UnsafeRawBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        }

        public func finish() -> UInt64 {
            var h = self.h
            // The tail bytes one at a time, as value(_:) takes them.
            for k in 0..<filled { h = (h ^ (word >> (UInt64(k) * 8) & 0xFF)) &* 0x0000_0100_0000_01b3 }
            return Digest.mix(h, count: total)
        }
    }

    static func mix(_ hash: UInt64, count: Int) -> UInt64 {
        var h = hash
        h ^= UInt64(count)
        h ^= h >> 33
        h = h &* 0xff51_afd7_ed55_8ccd
        h ^= h >> 33
        h = h &* 0xc4ce_b9fe_1a85_ec53
        h ^= h >> 33
        return h
    }

    public static func value(_ raw: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        var i = 0
        while i + 8 <= raw.count {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self).littleEndian) &* 0x0000_0100_0000_01b3
            i += 8
        }
        while i < raw.count {
            h = (h ^ UInt64(raw[i])) &* 0x0000_0100_0000_01b3
            i += 1
        }
        return mix(h, count: raw.count)
    }
}
