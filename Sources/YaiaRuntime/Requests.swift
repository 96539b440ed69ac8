import YaiaCore
import YaiaKit

/// The JSON request protocol of `yaia_execute` (see docs/abi.md).
extension Runtime {
    /// Performs a request given as JSON text; answers with a response or an
    /// error envelope, never throws.
    public func execute(_ bytes: UnsafeBufferPointer<UInt8>) -> JSON {
        do throws(YaiaError) {
            return execute(try limits.parse(bytes))
        } catch {
            return error.envelope()
        }
    }

    /// `execute`, its answer written into `writer` (after what it holds).
    /// A plain `logic` request is answered without building the request
    /// (`fastLogic`); an op that writes its answer (`Op.write`: a send's
    /// update) writes it here, its tag among its members, and is not read
    /// back into a tree.
    public func execute(_ bytes: UnsafeBufferPointer<UInt8>, into writer: inout JSONWriter) {
        if fastLogic(bytes, into: &writer) { return }
        let request: JSON
        do throws(YaiaError) {
            request = try limits.parse(bytes)
        } catch {
            return writer.write(error.envelope())
        }
        guard case .object(let o) = request else { return writer.write(execute(request)) }
        let start = writer.byteCount
        do throws(YaiaError) {
            let op = try entry(of: o)
            guard let write = op.write else { return writer.write(try answer(o, by: op)) }
            try write(self, o, o["tag"], &writer)
        } catch {
            writer.truncate(to: start)
            writer.write(error.envelope(tag: o["tag"]))
        }
    }

    public func execute(_ request: JSON) -> JSON {
        guard case .object(let o) = request else {
            return YaiaError(.notAnObject, "a request must be a JSON object, not \(request.kindName)").envelope()
        }
        do throws(YaiaError) {
            return try answer(o, by: try entry(of: o))
        } catch {
            return error.envelope(tag: o["tag"])
        }
    }

    /// `op`'s answer to the request `o`, with its tag given back.
    private func answer(_ o: JSONObject, by op: Op) throws(YaiaError) -> JSON {
        let response = try op.handle(self, o)
        guard let tag = o["tag"], case .object(var r) = response else { return response }
        r["tag"] = tag
        return .object(r)
    }

    /// The op a request names, when the request may use it.
    private func entry(of o: JSONObject) throws(YaiaError) -> Op {
        guard let opValue = o["op"] else { throw YaiaError(.badRequest, "the request has no \"op\"", at: "/op") }
        guard case .string(let op) = opValue else {
            throw YaiaError(.badRequest, "\"op\" must be a string, not \(opValue.kindName)", at: "/op")
        }
        guard let entry = Op.named[op] else { throw Op.unknown(op) }
        try grants.check(entry)
        return entry
    }
}

/// The handlers of the ops whose requests take more than a line to read (OpTable.swift).
extension Runtime {
    func request(open o: JSONObject) throws(YaiaError) -> JSON {
        let args = o["args"] ?? [:]
        guard case .object = args else { throw YaiaError(.notAnObject, "\"args\" must be an object, not \(args.kindName)", at: "/args") }
        let scene = try o.string("scene", code: .badRequest)
        let state = o["state"]
        if state != nil && o["args"] != nil {
            throw YaiaError(.badRequest, "open takes \"args\" or \"state\", not both", at: "/state")
        }
        let view = try ViewMode.read(o["view"], at: "/view", code: .badRequest)
        do throws(YaiaError) {
            return try open(scene, args: args, state: state, view: view)
        } catch {
            // The scene locates faults within its arguments or state.
            if error.code == .badArgs { throw error.nested(under: "/args") }
            if error.code == .badState { throw error.nested(under: "/state") }
            throw error
        }
    }

    /// A send's update, written with the request's `tag`.
    func request(send o: JSONObject, tag: JSON?, into writer: inout JSONWriter) throws(YaiaError) {
        let target: Int64
        let toFlow = o["flow"] != nil
        if toFlow {
            guard o["scene"] == nil else { throw YaiaError(.badRequest, "send takes \"scene\" or \"flow\", not both", at: "/flow") }
            guard o["path"] == nil else { throw YaiaError(.badRequest, "\"path\" goes with \"scene\": a child's path from it", at: "/path") }
            target = try o.integer("flow", code: .badRequest)
        } else {
            target = try childTarget(of: try o.integer("scene", code: .badRequest), path: o["path"])
        }
        guard let actionValue = o["action"] else { throw YaiaError(.badRequest, "send needs an \"action\"", at: "/action") }
        let action = try Action(json: actionValue, at: "/action")
        do throws(YaiaError) {
            try reduce(.send(toFlow ? .flow(target) : .scene(target), .value(action)), into: &writer, tag: tag)
        } catch {
            // The scene locates faults within the action.
            throw error.at == nil ? error : error.nested(under: "/action")
        }
    }

    func request(resolve o: JSONObject) throws(YaiaError) -> JSON {
        let id = try o.integer("effect", code: .badRequest)
        let (outcome, field): (Outcome, String)
        switch (o["result"], o["error"]) {
        case (let result?, nil): (outcome, field) = (.success(result), "/result")
        case (nil, let error?): (outcome, field) = (.failure(error), "/error")
        default: throw YaiaError(.badRequest, "resolve needs exactly one of \"result\" and \"error\"")
        }
        do throws(YaiaError) {
            return try resolve(effect: id, outcome: outcome)
        } catch {
            // The scene reads the outcome as its action's payload: point into the request instead.
            guard let at = error.at else { throw error }
            var moved = error
            moved.at = at.hasPrefix("/payload") ? field + at.dropFirst("/payload".count) : nil
            throw moved
        }
    }

    func request(close o: JSONObject) throws(YaiaError) -> JSON {
        if o["flow"] != nil {
            let id = try o.integer("flow", code: .badRequest)
            try closeFlow(id)
            return ["ok": true, "flow": .int(id), "closed": true]
        }
        let id = try o.integer("scene", code: .badRequest)
        try close(scene: id)
        return ["ok": true, "scene": .int(id), "closed": true]
    }

    func request(start o: JSONObject) throws(YaiaError) -> JSON {
        let args = o["args"] ?? [:]
        guard case .object = args else { throw YaiaError(.notAnObject, "\"args\" must be an object, not \(args.kindName)", at: "/args") }
        var name: String?
        if let n = o["flow"] {
            guard case .string(let s) = n else { throw YaiaError(.badRequest, "\"flow\" names the flow: a string", at: "/flow") }
            name = s
        }
        let view = try ViewMode.read(o["view"], at: "/view", code: .badRequest)
        return try startFlow(name: name, scene: try o.string("scene", code: .badRequest), args: args, view: view)
    }

    func request(popped o: JSONObject) throws(YaiaError) -> JSON {
        let depth = try o.integer("depth", code: .badRequest)
        let version = try o["version"].map { (_) throws(YaiaError) -> Int64 in try o.integer("version", code: .badRequest) }
        return try popped(flow: try o.integer("flow", code: .badRequest), depth: Int(clamping: depth), version: version)
    }

    func request(link o: JSONObject) throws(YaiaError) -> JSON {
        guard case .array(let path)? = o["path"] else { throw YaiaError(.badRequest, "link needs a \"path\" array", at: "/path") }
        return try link(flow: try o.integer("flow", code: .badRequest), path: path.elements)
    }

    func request(register o: JSONObject) throws(YaiaError) -> JSON {
        guard let document = o["document"] else { throw YaiaError(.badRequest, "register needs a \"document\"", at: "/document") }
        do throws(YaiaError) {
            return try register(document: document)
        } catch {
            throw error.code == .badDocument ? error.nested(under: "/document") : error
        }
    }

    func request(logic o: JSONObject) throws(YaiaError) -> JSON {
        guard let rule = o["rule"] else { throw YaiaError(.badRequest, "logic needs a \"rule\"", at: "/rule") }
        return ["ok": true, "result": try LogicRule(rule, at: "/rule").evaluate(o["data"] ?? .null, budget: limits.logicSteps)]
    }

    func request(advance o: JSONObject) throws(YaiaError) -> JSON {
        guard let seconds = o["seconds"]?.doubleValue else {
            throw YaiaError(.badRequest, "advance takes {\"seconds\": N}", at: "/seconds")
        }
        return try advance(by: seconds)
    }

    func request(loadPlugin o: JSONObject) throws(YaiaError) -> JSON {
        let config = o["config"] ?? [:]
        guard case .object = config else { throw YaiaError(.notAnObject, "\"config\" must be an object", at: "/config") }
        // Found as the config's plugins are, then opened beneath the grant where it was found.
        let path = try o.string("path", code: .badRequest)
        let info = try loadPlugin(path: path, config: config, files: .granted(grants, at: "/path"))
        return ["ok": true, "plugin": info.json]
    }

    func request(restore o: JSONObject) throws(YaiaError) -> JSON {
        guard let image = o["snapshot"] else { throw YaiaError(.badRequest, "restore needs a \"snapshot\"", at: "/snapshot") }
        do throws(YaiaError) {
            return try restore(image)
        } catch {
            throw error.at == nil ? error : error.nested(under: "/snapshot")
        }
    }

    func request(journal o: JSONObject) throws(YaiaError) -> JSON {
        if let start = o["start"] {
            guard case .string(let path) = start else { throw YaiaError(.badRequest, "\"start\" takes a file path", at: "/start") }
            return try startJournal(path: path, files: .granted(grants, at: "/start"))
        }
        if o["stop"] == .bool(true) { return stopJournal() }
        if o["flush"] == .bool(true) { return flushJournal() }
        throw YaiaError(.badRequest, "journal takes {\"start\": PATH}, {\"stop\": true} or {\"flush\": true}")
    }

    func request(replay o: JSONObject) throws(YaiaError) -> JSON {
        let path = try o.string("journal", code: .badRequest)
        let upTo = try o["to"].map { (_) throws(YaiaError) -> Int64 in try o.integer("to", code: .badRequest) }
        return try Runtime.replay(path: path, catalog: catalog, upTo: upTo, maxLine: limits.requestBytes,
                                  files: .granted(grants, at: "/journal"))
    }

    func request(inspect o: JSONObject) throws(YaiaError) -> JSON {
        guard case .bool(let on)? = o["on"] else { throw YaiaError(.badRequest, "inspect takes {\"on\": true|false}", at: "/on") }
        setInspecting(on)
        return ["ok": true, "inspect": .bool(on)]
    }

    func request(perform o: JSONObject) throws(YaiaError) -> JSON {
        guard let value = o["effect"] else { throw YaiaError(.badRequest, "perform needs an \"effect\"", at: "/effect") }
        return try perform(try Effect(json: value, at: "/effect"))
    }
}
