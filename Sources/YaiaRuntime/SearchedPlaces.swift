// Where the runtime looked for a pack, plugin or document it did not find,
// for the not-found message: every place, absolute and in order, with why it
// looked there, and for the example files, how to get them.
import Glibc

/// The working directory, nil when it cannot be read.
private func workingDirectory() -> String? {
    guard let cwd = getcwd(nil, 0) else { return nil }
    defer { free(cwd) }
    return String(cString: cwd)
}

/// `path` made absolute against `directory`, its "." and ".." steps taken
/// as written (the file need not exist).
private func absolute(_ path: String, in directory: String?) -> String {
    guard !path.hasPrefix("/"), let directory else { return path }
    var steps = directory.split(separator: "/")
    for step in path.split(separator: "/") {
        switch step {
        case ".": continue
        case "..": if !steps.isEmpty { steps.removeLast() }
        default: steps.append(step)
        }
    }
    return "/" + steps.joined(separator: "/")
}

private func joined(_ directory: String, _ name: String) -> String {
    directory.hasSuffix("/") ? directory + name : directory + "/" + name
}

/// `path` with the one place a relative path is read from: the working directory.
func placeOf(_ path: String) -> String {
    guard !path.hasPrefix("/") else { return path }
    let cwd = workingDirectory()
    return "\(path) (looked at \(absolute(path, in: cwd)): a relative path starts in the working directory\(cwd.map { ", " + $0 } ?? ""))"
}

/// Where resolveLibraryPath looked for `path`, in its order: for a not-found message.
func searchedPlaces(_ path: String, directories: [String] = pluginSearchPath()) -> String {
    guard !path.isEmpty else { return path }
    if ["/", "./", "../"].contains(where: path.hasPrefix) { return placeOf(path) + exampleHint(path) }
    let cwd = workingDirectory()
    let searched = directories.filter { !$0.isEmpty }
    var text = "\(path): looked at \(absolute(path, in: cwd)) (in the working directory)"
    if searched.isEmpty {
        text += "; YAIA_PLUGIN_PATH, the directories looked in next, is not set"
    } else {
        text += ", then " + searched.map { absolute(joined($0, path), in: cwd) }.joined(separator: ", ")
        text += " (YAIA_PLUGIN_PATH=\(searched.joined(separator: ":")))"
    }
    return text + exampleHint(path)
}

/// How to get the example pack or an example plugin, when `path` names one.
private func exampleHint(_ path: String) -> String {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    switch name {
    case "libyaia-examples.so":
        return "; the examples pack is built by `make examples-pack` (.build/release/libyaia-examples.so in the source tree)"
            + " and installed by `make install` in PREFIX/lib/yaia/; in Python, yaia.examples_pack() returns its path"
    case "auth.so", "store.so":
        return "; the example plugins are built by `make plugins` (.build/yaia/plugins/ in the source tree)"
            + " and installed by `make install` in PREFIX/lib/yaia/plugins/; in Python, yaia.plugin(\"\(name.dropLast(3))\") returns its path"
    default:
        return ""
    }
}
