// Scene documents in the runtime: read from files and folders named in the
// config, shipped by packs, or registered by a request; kept in the catalog
// beside Swift and pack scene types (docs/scene-documents.md).
import Glibc
import YaiaCore
import YaiaKit

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

    /// The `scenes` answer's entry for document `scene` of this origin.
    func json(scene: String) -> JSON {
        switch self {
        case .file(let path): ["scene": .string(scene), "file": .string(path)]
        case .pack(let name, let path): ["scene": .string(scene), "pack": .string(name), "path": .string(path)]
        case .registered: ["scene": .string(scene), "registered": true]
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
func readDocument(path: String, files: FileAccess = .host) throws(YaiaError) -> JSON {
    if case .host = files, fileType(path) == nil { throw YaiaError(.documentNotFound, "no scene document at \(placeOf(path))") }
    let fd = try files.open(path, code: .documentNotFound).fd
    defer { Glibc.close(fd) }
    let bytes = try readAll(fd, path: path, limit: maxDocumentBytes, code: .documentNotFound) { _ in
        YaiaError(.badDocument, "\(path) is larger than \(maxDocumentBytes) bytes: it is no scene document")
    }
    do throws(YaiaError) {
        return try bytes.withUnsafeBufferPointer { (b) throws(YaiaError) in try JSONParser.parse(b) }
    } catch {
        throw YaiaError(.badDocument, "\(path) is not JSON: \(error.message)")
    }
}

/// The `*.json` files of `folder`, sorted by name; hidden files are skipped.
func documentFiles(in folder: String, files: FileAccess = .host) throws(YaiaError) -> [String] {
    let fd = try files.open(folder, flags: O_RDONLY | O_DIRECTORY, code: .documentNotFound, type: S_IFDIR).fd
    guard let dir = fdopendir(fd) else {
        let reason = String(cString: strerror(errno))
        Glibc.close(fd)
        throw YaiaError(.documentNotFound, "cannot read the folder \(placeOf(folder)): \(reason)")
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
    guard !names.isEmpty else { throw YaiaError(.documentNotFound, "the folder \(folder) holds no scene documents (*.json files)") }
    let base = folder.hasSuffix("/") ? folder : folder + "/"
    return names.sorted { compareKeys($0, $1) < 0 }.map { base + $0 }
}

extension Catalog {
    /// Adds what the config's `scenes` names (an array of paths: packs,
    /// document files, folders of documents). Documents are checked once
    /// every entry is read, so their routes may name scenes of any entry.
    /// Errors are at the entry's pointer (`/scenes/I`). `depth`: how deeply
    /// the documents' states may nest, `steps` their step budget's base (the
    /// runtime's limits).
    /// A request's (`files` granted) are opened beneath its grant.
    mutating func load(_ list: JSON, at pointer: String, depth: Int, steps: Int = LogicRule.defaultBudget, files: FileAccess = .host) throws(YaiaError) {
        guard case .array(let items) = list else {
            throw YaiaError(.badConfig, "\"scenes\" must be an array of paths: scene packs, scene documents (.json) or folders of them", at: pointer)
        }
        var documents: [(json: JSON, origin: DocumentOrigin, at: String)] = []
        for (i, item) in items.enumerated() {
            let at = JSONPointer.appending(pointer, i)
            guard case .string(let path) = item else {
                throw YaiaError(.badConfig, "a \"scenes\" entry is a path (a scene pack, a scene document or a folder of them)", at: at)
            }
            do throws(YaiaError) {
                switch SceneSource(path) {
                case .pack(let path):
                    let pack = try loadScenePack(path: path, files: files)
                    try add(pack)
                    for (j, text) in pack.documents.enumerated() {
                        let json: JSON
                        do throws(YaiaError) {
                            json = try Array(text.utf8).withUnsafeBufferPointer { (b) throws(YaiaError) in try JSONParser.parse(b) }
                        } catch {
                            throw YaiaError(.badDocument, "document \(j) of pack \"\(pack.info.name)\" is not JSON: \(error.message)")
                        }
                        documents.append((json, .pack(name: pack.info.name, path: pack.info.path), JSONPointer.appending(at + "/documents", j)))
                    }
                case .document(let path):
                    documents.append((try readDocument(path: path, files: files), .file(path), at))
                case .folder(let folder):
                    for path in try documentFiles(in: folder, files: files) {
                        documents.append((try readDocument(path: path, files: files), .file(path), at))
                    }
                }
            } catch {
                throw error.located(at)
            }
        }
        var names = nameSet
        for d in documents { if case .string(let name)? = d.json["scene"] { names.insert(name) } }
        for d in documents {
            do throws(YaiaError) {
                try add(try DocumentScene(d.json, catalog: names, depth: depth, steps: steps), origin: d.origin)
            } catch {
                throw error.located(d.at, in: d.origin)
            }
        }
    }
}

extension DocumentScene {
    /// A document's scene type whose states nest at most `depth` levels,
    /// its expressions within `steps` and their data's share.
    init(_ json: JSON, catalog: Set<String>, depth: Int, steps: Int) throws(YaiaError) {
        try self.init(json, catalog: catalog, budget: steps)
        maxDepth = depth
    }
}

extension YaiaError {
    /// The error of a config entry: at the entry's pointer; a document's
    /// problems keep their own pointers (into the document), and the message
    /// says which document.
    func located(_ at: String, in origin: DocumentOrigin? = nil) -> YaiaError {
        var located = self
        if let origin, code == .badDocument { located.message = "\(origin.description): \(message)" }
        located.at = at
        return located
    }
}

extension Catalog {
    /// Adds a registered document, checked with the names there are, and
    /// returns its scene type's name; the same document registered again
    /// changes nothing. `added` receives the scene when it is new. Its cost
    /// does not grow with the catalog: the names are checked in place (a
    /// route to the document's own scene is never a problem).
    mutating func register(_ document: JSON, depth: Int, steps: Int = LogicRule.defaultBudget, added: inout [DocumentScene]) throws(YaiaError) -> String {
        if case .string(let name)? = document["scene"], let entry = self[name], entry.origin == .registered,
           entry.document?.document.json == document {
            return name
        }
        // A document is held and saved like a state: no deeper than one.
        guard document.nests(within: depth) else {
            throw YaiaError.limit("depth", depth, "the document nests more than \(depth) levels")
        }
        let scene = try DocumentScene(document, catalog: nameSet, depth: depth, steps: steps)
        try add(scene, origin: .registered)
        added.append(scene)
        return scene.name
    }

    /// The documents registered by requests, as they were given.
    var registered: [JSON] {
        documents.compactMap { name in self[name].flatMap { $0.origin == .registered ? $0.document?.document.json : nil } }
    }
}

extension Runtime {
    /// The `schema` request: a JSON Schema of scene type `name`'s interface.
    /// A document declares it (`declared`: true); Swift and pack scenes
    /// declare nothing, and get the schema every scene fits.
    /// A scene type with child slots adds `children` (SchemaChildren.swift).
    public func schema(of name: String) throws(YaiaError) -> JSON {
        let type = try sceneType(name, at: "/scene")
        var answer: JSONObject = ["ok": true, "scene": .string(name), "declared": false, "schema": Runtime.undeclaredSchema(name)]
        if let document = type.document {
            answer["declared"] = true
            answer["schema"] = document.document.schema
        }
        if !type.childSlots.isEmpty { answer["children"] = Runtime.childSchemas(type.childSlots, in: catalog) }
        return .object(answer)
    }

    /// What any scene takes and gives: Flux Standard Actions, object states
    /// and view models of any shape.
    static func undeclaredSchema(_ name: String) -> JSON {
        let any: JSON = [:]
        return [
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": .string(name),
            "$defs": [
                "args": ["type": "object"],
                "state": any,
                "action": ["type": "object", "required": ["type"],
                           "properties": ["type": ["type": "string"], "payload": any, "error": ["type": "boolean"], "meta": any]],
                "effect": ["type": "object", "required": ["service", "op"]],
                "route": ["type": "object"],
                "viewModel": any,
            ],
        ]
    }
}
