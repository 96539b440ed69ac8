import Testing
import YaiaCore

/// The signature language: a bytes parameter's length is declared with
/// `len`, and `pointer!` marks a parameter that consumes its handle.
@Suite struct ForeignSignatureTests {
    func message(_ text: String) -> String? {
        do {
            _ = try ForeignSignature(parsing: text)
            return nil
        } catch {
            #expect(error.code == .badSignature)
            return error.message
        }
    }

    @Test func lengthsAreDeclared() throws {
        let crc = try ForeignSignature(parsing: "uint64(uint64, bytes, len uint32)")
        #expect(crc.parameters.map(\.isLength) == [false, false, true])
        #expect(crc.argumentCount == 2)
        // memchr's layout: the length after an argument of the caller's.
        let find = try ForeignSignature(parsing: "pointer(bytes, int32, len size_t)")
        #expect(find.parameters.map(\.isLength) == [false, false, true])
        #expect(find.argumentCount == 2)
        #expect(find.description == "pointer(bytes,int32,len size_t)")
        let two = try ForeignSignature(parsing: "bool(bytes, len size_t, bytes, len size_t)")
        #expect(two.argumentCount == 2)
    }

    @Test func theImplicitLengthIsRefused() {
        for text in ["pointer(bytes, int32, size_t)", "uint64(uint64, bytes, uint32)", "int64(bytes)", "int64(bytes, out size_t)"] {
            let m = message(text)
            #expect(m?.contains("write \"bytes, len size_t\"") == true, "\(text): \(m ?? "accepted")")
            #expect(m?.contains("\"bytes\" at column") == true, "\(text): \(m ?? "accepted")")
        }
    }

    @Test func lenNeedsABytesAndAnInteger() {
        #expect(message("int32(len size_t)")?.contains("\"len\" at column 7") == true)
        #expect(message("int32(bytes, len size_t, len size_t)")?.contains("\"len\" at column 26") == true)
        #expect(message("int32(bytes, len double)")?.contains("\"double\" at column 18") == true)
        #expect(message("int32(bytes, len out int32)") != nil)
        // Each bytes has its length before the next bytes.
        #expect(message("bool(bytes, bytes, len size_t, len size_t)")?.contains("\"bytes\" at column 6") == true)
    }

    @Test func consumingPointers() throws {
        let free = try ForeignSignature(parsing: "void(pointer!)")
        #expect(free.parameters == [.init(.pointer, consumes: true)])
        #expect(free.description == "void(pointer!)")
        let realloc = try ForeignSignature(parsing: "pointer(pointer!, size_t)")
        #expect(realloc.pointersOut == 1)
        #expect(try ForeignSignature(parsing: "void(pointer, out pointer, out int32)").pointersOut == 1)
        #expect(message("pointer!(size_t)")?.contains("\"pointer!\" at column 1") == true)
        #expect(message("void(out pointer!)")?.contains("\"pointer!\" at column 10") == true)
        #expect(message("void(len pointer!)") != nil)
    }
}
