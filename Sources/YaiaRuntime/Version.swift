import Glibc

// The version of Yaia: the one place it is written. The Makefile reads the
// line below; the Python binding's tests check that theirs is the same.
public let yaiaVersion = "0.1.0"

/// The static version string, NUL-terminated, never freed.
nonisolated(unsafe) public let yaiaVersionCString: UnsafePointer<CChar> = {
    let text = yaiaVersion
    let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: text.utf8.count + 1)
    _ = text.withCString { strcpy(buffer, $0) }
    return UnsafePointer(buffer)
}()
