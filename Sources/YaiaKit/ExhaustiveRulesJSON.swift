// The exhaustive rules as JSON: what a test that lives outside Swift (the
// Python binding's SceneTest) holds between two `expect` requests.

extension ExhaustiveRules {
    /// `{"exhaustive": BOOL, "effects": [{"request", "received", "status", "by"?, "excused"}], "routes": [...]}`.
    package var json: JSON {
        .object(["exhaustive": .bool(exhaustive), "routes": .array(routes), "effects": .array(effects.map { r in
            var o: JSONObject = ["request": r.request, "received": .bool(r.received), "excused": .bool(r.excused)]
            switch r.status {
            case .inFlight: o["status"] = "inFlight"
            case .queued: o["status"] = "queued"
            case .resolved: o["status"] = "resolved"
            case .cancelled(let by):
                o["status"] = "cancelled"
                if let by { o["by"] = .string(by) }
            }
            return .object(o)
        })])
    }

    /// Reads what `json` wrote; `bad_request` under `pointer` for anything else.
    package init(json: JSON, at pointer: String) throws(YaiaError) {
        guard case .object(let o) = json else {
            throw YaiaError(.badRequest, "a test's record is an object, not \(json.kindName)", at: pointer)
        }
        self.init(exhaustive: try o.bool("exhaustive", code: .badRequest, under: pointer))
        guard case .array(let list)? = o["effects"], case .array(let routes)? = o["routes"] else {
            throw YaiaError(.badRequest, "a test's record has \"effects\" and \"routes\", arrays", at: pointer)
        }
        self.routes = routes.elements
        for (i, item) in list.enumerated() {
            effects.append(try Self.record(item, at: JSONPointer.appending(JSONPointer.appending(pointer, "effects"), i)))
        }
    }

    /// A record as `json` writes it; what is left out is as for an effect just emitted.
    package static func record(_ item: JSON, at: String) throws(YaiaError) -> Record {
        guard case .object(let e) = item, let request = e["request"] else {
            throw YaiaError(.badRequest, "an effect of a test's record is an object with a \"request\"", at: at)
        }
        var record = Record(request: request)
        if e["received"] != nil { record.received = try e.bool("received", code: .badRequest, under: at) }
        if e["excused"] != nil { record.excused = try e.bool("excused", code: .badRequest, under: at) }
        switch try e.optionalString("status", code: .badRequest, under: at) ?? "inFlight" {
        case "inFlight": record.status = .inFlight
        case "queued": record.status = .queued
        case "resolved": record.status = .resolved
        case "cancelled": record.status = .cancelled(by: try e.optionalString("by", code: .badRequest, under: at))
        case let other:
            throw YaiaError(.badRequest, "\"status\" is inFlight, queued, resolved or cancelled, not \"\(other)\"",
                            at: JSONPointer.appending(at, "status"))
        }
        return record
    }
}
