import Glibc
import YaiaCore
import YaiaKit

/// Opens a regular file, and only a regular file, without ever blocking.
///
/// The open itself is non-blocking (`O_NONBLOCK`), so a FIFO without a
/// writer or a device cannot hang it; then `fstat` refuses anything but a
/// regular file (FIFOs, devices, directories, sockets), and `O_NONBLOCK` is
/// cleared. Descriptors are `O_CLOEXEC`. With `followSymlink` false, a path
/// whose last component is a symbolic link is refused (`O_NOFOLLOW`).
/// Failures throw `code`, with the reason.
func openRegularFile(_ path: String, flags: Int32, mode: mode_t = 0o644, followSymlink: Bool,
                     code: ErrorCode) throws(YaiaError) -> Int32 {
    try openFile(path, flags: flags | (followSymlink ? 0 : O_NOFOLLOW), mode: mode, code: code)
}

/// `openRegularFile`, links followed unless `flags` has `O_NOFOLLOW`, for a
/// file of `type` (`S_IFREG` or `S_IFDIR`); when there is no file the error
/// is `missing`.
func openFile(_ path: String, flags: Int32, mode: mode_t = 0o644, code: ErrorCode, missing: ErrorCode? = nil,
              type: mode_t = S_IFREG) throws(YaiaError) -> Int32 {
    let fd = Glibc.open(path, flags | O_NONBLOCK | O_CLOEXEC, mode)
    guard fd >= 0 else {
        let failure = errno
        let reason = failure == ELOOP && flags & O_NOFOLLOW != 0 ? "it is a symbolic link" : String(cString: strerror(failure))
        throw YaiaError(failure == ENOENT ? missing ?? code : code, "cannot open \(path): \(reason)")
    }
    try checkOpened(fd, path: path, code: code, type: type)
    return fd
}

/// Refuses (closing `fd`) a descriptor that is not of `type`, then makes it
/// blocking: it was opened with `O_NONBLOCK` so that no FIFO could hang the open.
func checkOpened(_ fd: Int32, path: String, code: ErrorCode, type wanted: mode_t, at pointer: String? = nil) throws(YaiaError) {
    var info = stat()
    guard fstat(fd, &info) == 0 else {
        let reason = String(cString: strerror(errno))
        Glibc.close(fd)
        throw YaiaError(code, "cannot open \(path): \(reason)", at: pointer)
    }
    let type = info.st_mode & S_IFMT
    guard type == wanted else {
        Glibc.close(fd)
        throw YaiaError(code, "cannot open \(path): it is \(kindName(type)), not \(kindName(wanted))", at: pointer)
    }
    let status = fcntl(fd, F_GETFL)
    if status >= 0 { _ = fcntl(fd, F_SETFL, status & ~O_NONBLOCK) }
}

/// The type bits (`S_IFREG`, `S_IFDIR`, ...) of what `path` names, links
/// followed, or nil when there is nothing. Checked before a `dlopen`, which
/// would block on a FIFO.
func fileType(_ path: String) -> mode_t? {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
}

/// "a directory", "a FIFO", ... for messages.
func kindName(_ type: mode_t) -> String {
    switch type {
    case S_IFREG: "a regular file"
    case S_IFDIR: "a directory"
    case S_IFIFO: "a FIFO"
    case S_IFCHR, S_IFBLK: "a device"
    case S_IFSOCK: "a socket"
    default: "a special file"
    }
}

/// The bytes of an open file, to its end. Past `limit` bytes it stops and
/// throws `tooLarge(bytes read so far)`; a read error is `code` at `pointer`.
func readAll(_ fd: Int32, path: String, limit: Int, code: ErrorCode, at pointer: String? = nil,
             tooLarge: (Int) -> YaiaError) throws(YaiaError) -> [UInt8] {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw YaiaError(code, "cannot read \(path): \(String(cString: strerror(errno)))", at: pointer)
        }
        if n == 0 { return bytes }
        guard bytes.count + n <= limit else { throw tooLarge(bytes.count + n) }
        bytes.append(contentsOf: chunk[0..<n])
    }
}

/// The bytes of the file at `path`, or nil when it cannot be opened or
/// read: for tools that read the files they are given (no grant applies).
public func readFile(_ path: String) -> [UInt8]? {
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    return try? readAll(fd, path: path, limit: Int.max, code: .badRequest) { _ in YaiaError(.limitExceeded, "") }
}
