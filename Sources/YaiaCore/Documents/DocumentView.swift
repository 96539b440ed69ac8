import YaiaKit

// A scene document's view model after a reduction, member by member. A
// member whose inputs, the state fields it reads, are the very values they
// were for the last view model keeps its value from it: a send that changes
// a draft does not pass over the list of 100,000 items beside it, and the
// view model it gives shares that list's storage, so the diff skips it.

/// What each view member reads of the state: its fields, or nil for a
/// member that reads what cannot be named before it runs (the whole state,
/// a computed path), evaluated every time.
struct DocumentViewInputs: Sendable {
    let members: [[String]?]

    init(_ view: [(key: String, value: Template)]?) {
        members = (view ?? []).map { $0.value.stateFields() }
    }
}

extension Template {
    /// The state fields the template reads, or nil when they cannot be told;
    /// reads of the root `other` (a child's item) are not the state's.
    func stateFields(besides other: String? = nil) -> [String]? {
        switch self {
        case .literal: return []
        case .rule(let rule, _): return rule.fields(under: "state", besides: other)
        case .object(let members): return Template.stateFields(of: members.map(\.value), besides: other)
        case .array(let items): return Template.stateFields(of: items, besides: other)
        }
    }

    /// What all of `templates` read of the state, or nil when one cannot tell.
    static func stateFields(of templates: [Template], besides other: String? = nil) -> [String]? {
        var all: [String] = []
        for t in templates {
            guard let fields = t.stateFields(besides: other) else { return nil }
            all.append(contentsOf: fields)
        }
        return all
    }
}

extension LogicRule {
    /// The keys below `root` the rule reads (its paths' second steps), or
    /// nil when it reads `root` whole, another root than `other`, or what no
    /// path names.
    func fields(under root: String, besides other: String? = nil) -> [String]? {
        guard !program.opaqueReads else { return nil }
        var fields: [String] = []
        for i in program.reads {
            let segments = program.paths[Int(i)].segments
            if let other, segments.first?.key == other { continue }
            guard segments.count > 1, segments[0].key == root else { return nil }
            if !fields.contains(segments[1].key) { fields.append(segments[1].key) }
        }
        return fields
    }
}

extension DocumentSceneValue {
    /// The view model of `state`, which follows `previous` whose view model
    /// was `last`: members whose inputs are unchanged are taken from `last`.
    static func view(of state: JSONObject, scene: DocumentScene, after previous: JSONObject, last: JSON) throws(YaiaError) -> JSON {
        guard let view = scene.document.storage.view, case .object(let lastModel) = last,
              scene.viewInputs.members.count == view.count else { return try self.view(of: state, scene: scene) }
        let data: JSON = ["state": .object(state)]
        var steps = scene.steps
        var model = JSONObject(minimumCapacity: view.count)
        for (i, (key, template)) in view.enumerated() {
            if let fields = scene.viewInputs.members[i], let kept = lastModel[key],
               fields.allSatisfy({ identical(state[$0], previous[$0]) }) {
                model[key] = kept
            } else {
                model[key] = try template.evaluate(data, &steps)
            }
        }
        return .object(model)
    }

    /// Whether `a` and `b` are the same value in the same storage, told
    /// without looking inside a list or an object: what an expression read
    /// from one it would read from the other.
    static func identical(_ a: JSON?, _ b: JSON?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (.null?, .null?): return true
        case let (.bool(x)?, .bool(y)?): return x == y
        case let (.int(x)?, .int(y)?): return x == y
        case let (.uint(x)?, .uint(y)?): return x == y
        case let (.double(x)?, .double(y)?): return x.bitPattern == y.bitPattern
        case let (.string(x)?, .string(y)?): return x.utf8.count == y.utf8.count && x.utf8.elementsEqual(y.utf8)
        case let (.array(x)?, .array(y)?): return x.sharesStorage(with: y)
        case let (.object(x)?, .object(y)?): return x.sharesStorage(with: y)
        default: return false
        }
    }
}
