// Loading a shared object (a plugin, a scene pack, a bound library given by
// its path) from a file the runtime opened: its ELF headers are checked
// through the descriptor, then the dynamic loader maps that very file.
import Glibc
import YaiaCore
import YaiaKit

/// Checks `file` as a shared object for this machine, then `dlopen`s it
/// through `/proc/self/fd/N` (`RTLD_NOW | RTLD_LOCAL`; never closed). Takes
/// the descriptor. The loader knows the library by that name from then on,
/// and would hand the library out again for another file opened under the
/// same number: so the descriptor of each file loaded stays open for the
/// life of the process (as its mapping does), and a file loaded before is
/// found by its device and inode, its new descriptor closed. Failures are
/// `code` at `pointer`, the message naming `what` and the file.
func loadSharedObject(_ file: OpenedFile, code: ErrorCode, what: String, at pointer: String? = nil) throws(YaiaError) -> UnsafeMutableRawPointer {
    var info = stat()
    let identity = fstat(file.fd, &info) == 0 ? FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) : nil
    return try sharedObjects.withLock { () throws(YaiaError) -> UnsafeMutableRawPointer in
        if let identity, let handle = handlesByFile[identity] {
            Glibc.close(file.fd)
            return handle
        }
        if let problem = elfProblem(file.fd) {
            Glibc.close(file.fd)
            throw YaiaError(code, "cannot load \(what) \(file.path): \(problem)", at: pointer)
        }
        let name = "/proc/self/fd/\(file.fd)"
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            Glibc.close(file.fd)
            throw YaiaError(code, "cannot load \(what) \(file.path): \(reason.replacing(name, with: file.path))", at: pointer)
        }
        if let identity { handlesByFile[identity] = handle }
        return handle
    }
}

private struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64
}

/// Shared objects loaded through a descriptor, by file.
private let sharedObjects = Lock()
nonisolated(unsafe) private var handlesByFile: [FileIdentity: UnsafeMutableRawPointer] = [:]

/// Why the file open at `fd` is no shared object the dynamic loader may map
/// here, or nil: a 64-bit little-endian ELF shared object for this machine
/// whose program headers, and every loaded segment's bytes, lie inside the
/// file. The loader trusts all of that, and a file that lies about it ends
/// the process with SIGBUS.
func elfProblem(_ fd: Int32) -> String? {
    var info = stat()
    guard fstat(fd, &info) == 0 else { return String(cString: strerror(errno)) }
    let size = UInt64(max(0, info.st_size))
    let headerSize = 64, entrySize = 56
    guard size >= UInt64(headerSize), let header = readBytes(fd, count: headerSize, at: 0) else {
        return "it is \(size) bytes, too short for an ELF header"
    }
    guard header[0] == 0x7F, header[1] == 0x45, header[2] == 0x4C, header[3] == 0x46 else { return "it is not an ELF file" }
    guard header[4] == 2, header[5] == 1, header[6] == 1 else { return "it is not a 64-bit little-endian ELF file" }
    guard header.u16(16) == 3 else { return "it is not a shared object (ELF type \(header.u16(16)))" }
    guard header.u16(18) == elfMachine else { return "it is built for another machine (ELF machine \(header.u16(18)))" }
    let tableOffset = header.u64(32), count = UInt64(header.u16(56))
    guard header.u16(54) == entrySize, count > 0, count < 0xFFFF else { return "its program headers are malformed" }
    let (tableEnd, overflow) = tableOffset.addingReportingOverflow(count * UInt64(entrySize))
    guard !overflow, tableEnd <= size, let table = readBytes(fd, count: Int(count) * entrySize, at: tableOffset) else {
        return "its program headers lie past its end (\(size) bytes)"
    }
    var loads = 0
    for i in 0..<Int(count) {
        let entry = i * entrySize
        let type = table.u32(entry)
        // PT_LOAD and PT_DYNAMIC: mapped from the file, and read by the loader.
        guard type == 1 || type == 2 else { continue }
        if type == 1 { loads += 1 }
        let (end, overflow) = table.u64(entry + 8).addingReportingOverflow(table.u64(entry + 32))
        guard !overflow, end <= size else { return "its segment \(i) lies past its end (\(size) bytes)" }
    }
    return loads > 0 ? nil : "it has no loadable segment"
}

#if arch(x86_64)
private let elfMachine: UInt16 = 62
#elseif arch(arm64)
private let elfMachine: UInt16 = 183
#else
private let elfMachine: UInt16 = 0
#endif

/// `count` bytes at `offset` of `fd`, or nil when they cannot all be read.
private func readBytes(_ fd: Int32, count: Int, at offset: UInt64) -> [UInt8]? {
    guard offset <= UInt64(Int64.max) else { return nil }
    var bytes = [UInt8](repeating: 0, count: count)
    var got = 0
    while got < count {
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress.map { $0 + got }, count - got, off_t(offset) + off_t(got)) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return nil }
        got += n
    }
    return bytes
}

extension [UInt8] {
    /// Little-endian integers at byte `i`.
    fileprivate func u16(_ i: Int) -> UInt16 { UInt16(self[i]) | UInt16(self[i + 1]) << 8 }
    fileprivate func u32(_ i: Int) -> UInt32 { UInt32(u16(i)) | UInt32(u16(i + 2)) << 16 }
    fileprivate func u64(_ i: Int) -> UInt64 { UInt64(u32(i)) | UInt64(u32(i + 4)) << 32 }
}
