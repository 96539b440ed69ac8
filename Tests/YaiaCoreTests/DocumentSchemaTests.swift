import Testing
import YaiaCore
import YaiaKit

@Suite("Scene documents: the schema of a scene")
struct DocumentSchemaTests {
    @Test("the login document's interface: args, state, actions, effects, routes, view model")
    func login() throws {
        let schema = try SceneDocument(json(loginDocument)).schema
        #expect(schema["$schema"] == "https://json-schema.org/draft/2020-12/schema")
        #expect(schema["title"] == "notes/login")
        let defs = try #require(schema["$defs"])
        #expect(defs["args"] == ["type": "object", "properties": ["email": ["type": "string", "default": ""]],
                                 "additionalProperties": false])
        // email from the typed argument, the others from their literals; null says nothing.
        #expect(defs["state"] == ["type": "object",
                                  "properties": ["email": ["type": "string"], "error": [:], "password": ["type": "string"],
                                                 "submitting": ["type": "boolean"]],
                                  "required": ["email", "error", "password", "submitting"], "additionalProperties": false])
        let actions = try #require(defs["action"]?["oneOf"]?.arrayValue)
        #expect(actions.count == 5)
        #expect(actions.first == ["type": "object", "properties": ["type": ["const": "emailChanged"], "payload": ["type": "string"]],
                                  "required": ["type", "payload"]])
        #expect(actions.contains(["type": "object", "properties": ["type": ["const": "submit"]], "required": ["type"]]))
        #expect(actions.contains(["type": "object",
                                  "properties": ["type": ["const": "loginSucceeded"],
                                                 "payload": ["type": "object", "properties": ["user": ["type": "object"]], "required": ["user"]]],
                                  "required": ["type", "payload"]]))
        #expect(defs["effect"] == ["oneOf": [["type": "object",
                                              "properties": ["service": ["const": "auth"], "op": ["const": "login"],
                                                             "args": ["type": "object", "properties": ["email": ["type": "string"], "password": ["type": "string"]]],
                                                             "then": ["const": "loginSucceeded"], "catch": ["const": "loginFailed"]],
                                              "required": ["service", "op"]]]])
        // payload.user: the declared shape's member.
        #expect(defs["route"] == ["oneOf": [["type": "object",
                                             "properties": ["push": ["const": "notes/list"],
                                                            "args": ["type": "object", "properties": ["user": ["type": "object"]]]],
                                             "required": ["push"]]]])
        #expect(defs["viewModel"] == ["type": "object",
                                      "properties": ["email": ["type": "string"], "error": [:], "canSubmit": ["type": "boolean"]],
                                      "required": ["canSubmit", "email", "error"], "additionalProperties": false])
    }

    @Test("no view: the view model is the state; no effects or routes: false; declarations become JSON Schema")
    func plain() throws {
        let schema = try SceneDocument(json(DocumentActionTests.declarations)).schema
        let defs = try #require(schema["$defs"])
        #expect(defs["viewModel"] == defs["state"])
        #expect(defs["effect"] == false)
        #expect(defs["route"] == false)
        let actions = try #require(defs["action"]?["oneOf"]?.arrayValue)
        let optional = try #require(actions.first { $0["properties"]?["type"] == ["const": "optional"] })
        #expect(optional == ["type": "object", "properties": ["type": ["const": "optional"], "payload": ["type": ["number", "null"]]],
                             "required": ["type"]])
        let shape = try #require(actions.first { $0["properties"]?["type"] == ["const": "shape"] })
        #expect(shape["properties"]?["payload"] == [
            "type": "object",
            "properties": ["id": ["type": "integer"], "inner": ["type": "object", "properties": ["done": ["type": "boolean"]], "required": ["done"]],
                           "note": ["type": ["string", "null"]], "tags": ["type": "array", "items": ["type": "string"]], "title": ["type": "string"]],
            "required": ["id", "inner", "tags", "title"]])
        let s = try #require(actions.first { $0["properties"]?["type"] == ["const": "schema"] })
        #expect(s["properties"]?["payload"]?["properties"]?["title"] == ["type": "string", "minLength": 1, "maxLength": 3])
        #expect(s["properties"]?["payload"]?["additionalProperties"] == false)
    }

    @Test("an enum payload without null is required, and a missing one is told the values it takes")
    func enumPayload() throws {
        let text = """
        {"yaia": 1, "scene": "t/filter", "state": {"filter": "all"},
         "actions": {"setFilter": {"payload": {"schema": {"enum": ["all", "active", "done"]}}, "set": {"filter": {"var": "payload"}}}}}
        """
        let actions = try #require(try SceneDocument(json(text)).schema["$defs"]?["action"]?["oneOf"]?.arrayValue)
        #expect(actions.first?["required"] == ["type", "payload"])
        let missing = try sendError(try document(text).open(), #"{"type": "setFilter"}"#)
        #expect(missing?.code == .badPayload)
        #expect(missing?.message == #"setFilter's payload is missing: it must be one of "all", "active", "done""#)
    }

    @Test("a count of one is in the singular: at least 1 character long")
    func singular() throws {
        let s = try document(DocumentActionTests.declarations).open()
        let error = try sendError(s, #"{"type": "schema", "payload": {"title": ""}}"#)
        #expect(error?.message == "schema's payload at /title must be at least 1 character long")
        let long = try sendError(s, #"{"type": "schema", "payload": {"title": "abcd"}}"#)
        #expect(long?.message == "schema's payload at /title must be at most 3 characters long")
    }
}
