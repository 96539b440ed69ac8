// Scene documents in the runtime: read from files and folders named in the
// config, shipped by packs, or registered by a request; kept in the catalog
// beside Swift and pack scene types (docs/scene-documents.md).
import Glibc
import YaiaCore

/// Where a scene document came from, for messages and the `scenes` answer.
public enum DocumentOrigin: Sendable, Equatable {
    case file(String)
    case pack(name: String, path: String)
    case registered

    var description: String {
        switch self {
        case .file(let path): "document \(path)"
        case .pack(let name, let path): "a document of pack \"\(name)\" (\(path))"
        case .registered: "a registered document"
        }
    }

    var json: JSON {
        switch self {
        case .file(let path): ["file": .string(path)]
        case .pack(let name, let path): ["pack": .string(name), "path": .string(path)]
        case .registered: ["registered": true]
        }
    }
}

/// The largest document file read: far past any hand-written scene.
let maxDocumentBytes = 16 << 20

/// What one entry of the config's `scenes` names.
enum SceneSource {
    /// A folder: every `*.json` file in it (not its subfolders), by name.
    case folder(String)
    case document(String)
    case pack(String)

    init(_ path: String) {
        if path.hasSuffix("/") || fileType(path) == S_IFDIR {
            self = .folder(path)
        } else if path.hasSuffix(".json") {
            self = .document(path)
        } else {
            self = .pack(path)
        }
    }
}

/// Reads a document file as JSON: a regular file of at most `maxDocumentBytes`.
func readDocument(path: String) throws(YaiaError) -> JSON {
    guard fileType(path) != nil else { throw YaiaError(.documentNotFound, "no scene document at \(path)") }
    let fd = try openRegularFile(path, flags: O_RDONLY, followSymlink: true, code: .documentNotFound)
    defer { Glibc.close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw YaiaError(.documentNotFound, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        if n == 0 { break }
        guard bytes.count + n <= maxDocumentBytes else {
            throw YaiaError(.badDocument, "\(path) is larger than \(maxDocumentBytes) bytes: it is no scene document")
        }
        bytes.append(contentsOf: chunk[0..<n])
    }
    do throws(YaiaError) {
        return try bytes.withUnsafeBufferPointer { (b) throws(YaiaError) in try JSONParser.parse(b) }
    } catch {
        throw YaiaError(.badDocument, "\(path) is not JSON: \(error.message)")
    }
}

/// The `*.json` files of `folder`, sorted by name; hidden files are skipped.
func documentFiles(in folder: String) throws(YaiaError) -> [String] {
    guard let dir = opendir(folder) else {
        throw YaiaError(.documentNotFound, "cannot read the folder \(folder): \(String(cString: strerror(errno)))")
    }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        guard name.hasSuffix(".json"), !name.hasPrefix(".") else { continue }
        names.append(name)
    }
    let base = folder.hasSuffix("/") ? folder : folder + "/"
    return names.sorted { compareKeys($0, $1) < 0 }.map { base + $0 }
}
