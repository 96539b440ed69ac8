// The one door through which the runtime opens a file it is given by name:
// as the host's word, or beneath a directory granted to requests.
import CYaia
import Glibc
import YaiaCore
import YaiaKit

/// A file the runtime opened: its descriptor (`O_CLOEXEC`; whoever receives
/// it closes it) and the path its messages show.
struct OpenedFile {
    let fd: Int32
    let path: String
}

/// How a file named by a path is opened.
enum FileAccess: Sendable {
    /// The host's word (its config, its own calls): the path as it is, links followed.
    case host
    /// A request's: confined to the granted directories, then opened beneath
    /// the one it lies in by the kernel, following no link, so that a link
    /// swapped in after the check cannot lead out. Refusals are
    /// `not_permitted` at `at`.
    case granted(Grants, at: String)

    /// Opens the file at `path`: a regular file (or, with `type` `S_IFDIR`, a
    /// directory), without blocking on FIFOs or devices. When it does not
    /// exist the error is `missing`, any other failure `code`.
    func open(_ path: String, flags: Int32 = O_RDONLY, code: ErrorCode, missing: ErrorCode? = nil,
              type: mode_t = S_IFREG) throws(YaiaError) -> OpenedFile {
        switch self {
        case .host:
            return OpenedFile(fd: try openFile(path, flags: flags, code: code, missing: missing, type: type), path: path)
        case .granted(let grants, let at):
            return try grants.openBeneath(path, at: at, flags: flags, code: code, missing: missing ?? code, type: type)
        }
    }

    /// The path `open` would open, for comparing (packs are loaded once per
    /// file): canonical, or nil when there is nothing there. Granted, it must
    /// lie inside the granted directories.
    func resolve(_ path: String) throws(YaiaError) -> String? {
        switch self {
        case .host: canonicalPath(path)
        case .granted(let grants, let at): try grants.confine(path, at: at)
        }
    }
}

extension Grants {
    /// Opens `path`, which a request names, beneath the granted directory its
    /// confined path lies in. The check (`confine`) resolves links by name;
    /// the open follows none and never leaves the directory, so whatever
    /// changed in between, what is opened lies inside the grant.
    func openBeneath(_ path: String, at pointer: String, flags: Int32, code: ErrorCode, missing: ErrorCode,
                     type: mode_t) throws(YaiaError) -> OpenedFile {
        func refuse(_ why: String) -> YaiaError {
            YaiaError(.notPermitted, "\(path): \(why); requests may name files only inside the directories the config grants", at: pointer)
        }
        let resolved: String
        if type == S_IFDIR {
            // A folder may be a granted directory itself.
            guard let real = canonicalPath(path) else {
                // As `confine` does: whether it exists is told only when every directory is granted.
                guard directories == ["/"] else { throw refuse("the folder does not exist") }
                throw YaiaError(missing, "cannot open \(path): \(String(cString: strerror(ENOENT)))", at: pointer)
            }
            guard directories.contains(where: { real == $0 || beneath(real, $0) }) else {
                throw refuse("the folder lies outside the directories the config grants requests")
            }
            resolved = real
        } else {
            resolved = try confine(path, at: pointer)
        }
        guard resolved.hasPrefix("/"),
              let dir = directories.filter({ resolved == $0 || beneath(resolved, $0) }).max(by: { $0.count < $1.count }) else {
            // Only with every directory granted: its directory does not exist.
            throw YaiaError(missing, "cannot open \(path): \(String(cString: strerror(ENOENT)))", at: pointer)
        }
        let relative = resolved == dir ? "." : String(resolved.utf8.dropFirst(dir == "/" ? 1 : dir.utf8.count + 1)) ?? "."
        let fd = cyaia_open_beneath(dir, relative, flags | O_NONBLOCK | O_CLOEXEC, 0o644, 1)
        guard fd >= 0 else {
            let failure = errno
            switch failure {
            case ELOOP, EXDEV: throw refuse("it changed into a symbolic link while it was opened")
            case ENOENT: throw YaiaError(missing, "cannot open \(path): \(String(cString: strerror(failure)))", at: pointer)
            default: throw YaiaError(code, "cannot open \(path): \(String(cString: strerror(failure)))", at: pointer)
            }
        }
        try checkOpened(fd, path: path, code: code, type: type, at: pointer)
        return OpenedFile(fd: fd, path: resolved)
    }
}
